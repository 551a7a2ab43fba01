#!/usr/bin/env bash
# Back up one database: scripts/backup.sh DATABASE_URL FILE
# A consistent snapshot (pg_dump's one transaction) taken while the service runs, in
# PostgreSQL's custom format (compressed; pg_restore can restore it whole or in part).
set -euo pipefail
url=${1:?usage: backup.sh DATABASE_URL FILE}
file=${2:?usage: backup.sh DATABASE_URL FILE}
mkdir -p "$(dirname "$file")"
pg_dump --format=custom --no-owner --no-privileges --file="$file.partial" "$url"
mv "$file.partial" "$file"  # never a half-written file under the real name
echo "backup: $file ($(du -h "$file" | cut -f1))"
