#!/usr/bin/env bash
# Restore a backup into a database: scripts/restore.sh DATABASE_URL FILE
# The database is created when it does not exist (a new server); an existing one has its
# tables replaced by the backup's. Stop the web processes, the worker and beat first.
set -euo pipefail
url=${1:?usage: restore.sh DATABASE_URL FILE}
file=${2:?usage: restore.sh DATABASE_URL FILE}
test -s "$file" || { echo "restore: no backup at $file" >&2; exit 2; }
base=${url%%\?*}
name=${base##*/}
maintenance="${base%/*}/postgres"
if ! psql "$maintenance" -tAc "SELECT 1 FROM pg_database WHERE datname = '$name'" | grep -q 1; then
  psql "$maintenance" -qc "CREATE DATABASE \"$name\""
  echo "restore: created database $name"
fi
pg_restore --clean --if-exists --no-owner --no-privileges --exit-on-error --dbname="$url" "$file"
echo "restore: $file into $name"
