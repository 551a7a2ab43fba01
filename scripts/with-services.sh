#!/usr/bin/env bash
# Run a command with PostgreSQL and Redis reachable at DATABASE_URL / REDIS_URL.
#
# When nothing answers at the configured URLs, install Debian's postgresql and
# redis-server if missing and start throwaway instances (a temporary data directory,
# a free port), stopped when the command ends.
set -euo pipefail

: "${DATABASE_URL:=postgres://root@127.0.0.1:5432/wordduel}"
: "${REDIS_URL:=redis://127.0.0.1:6379/0}"

tmp=""
pg_bin=""
redis_pid=""
cleanup() {
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; fi
  if [ -n "$pg_bin" ] && [ -n "$tmp" ]; then
    su postgres -s /bin/sh -c "$pg_bin/pg_ctl -D $tmp/pg -m fast stop" >/dev/null 2>&1 || true
  fi
  if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT

hostport() {  # URL -> "host port"
  python3 - "$1" "$2" <<'PY'
import sys
from urllib.parse import urlsplit
u = urlsplit(sys.argv[1])
print(u.hostname or "127.0.0.1", u.port or int(sys.argv[2]))
PY
}

answers() {  # host port -> 0 when something listens there
  python3 - "$1" "$2" <<'PY'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=1).close()
except OSError:
    sys.exit(1)
PY
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "with-services: need $* but cannot install it (not root or no apt-get)" >&2
    exit 1
  fi
}

read -r pg_host pg_port < <(hostport "$DATABASE_URL" 5432)
read -r redis_host redis_port < <(hostport "$REDIS_URL" 6379)

if ! answers "$pg_host" "$pg_port"; then
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || apt_install postgresql
  pg_bin=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  port=$(free_port)
  mkdir "$tmp/pg" && chown postgres "$tmp/pg"
  su postgres -s /bin/sh -c "$pg_bin/initdb -D $tmp/pg -A trust -U postgres" >/dev/null
  su postgres -s /bin/sh -c "$pg_bin/pg_ctl -D $tmp/pg -l $tmp/pg/server.log -w \
    -o '-p $port -k $tmp/pg -c listen_addresses=127.0.0.1 -c fsync=off' start" >/dev/null
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/wordduel"
  echo "with-services: nothing answered PostgreSQL at $pg_host:$pg_port; started a throwaway one on port $port."
fi

if ! answers "$redis_host" "$redis_port"; then
  command -v redis-server >/dev/null || apt_install redis-server
  [ -n "$tmp" ] || tmp=$(mktemp -d)
  port=$(free_port)
  redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir "$tmp" \
    --logfile "$tmp/redis.log" &
  redis_pid=$!
  for _ in $(seq 50); do answers 127.0.0.1 "$port" && break; sleep 0.1; done
  export REDIS_URL="redis://127.0.0.1:$port/0"
  echo "with-services: nothing answered Redis at $redis_host:$redis_port; started a throwaway one on port $port."
fi

export DATABASE_URL REDIS_URL
"$@"
