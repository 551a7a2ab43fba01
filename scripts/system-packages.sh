#!/usr/bin/env bash
# Install the Debian packages the tests use, when missing: scripts/system-packages.sh ITEM...
#
# Each ITEM is a package, PACKAGE, whose command of the same name shows it is installed
# (chromium, caddy), or PACKAGE=PROBE, a command or a file pattern that shows it
# (postgresql=/usr/lib/postgresql/*/bin/initdb). Run by `make test` (and `make check`) before
# any test starts; the tests themselves never install anything, they only fail saying what
# is missing. apt waits for another apt process's lock instead of failing.
set -euo pipefail

present() {  # PROBE -> 0 when the command exists or the pattern names a file
  command -v "$1" >/dev/null 2>&1 && return 0
  compgen -G "$1" >/dev/null
}

missing=()
for item in "$@"; do
  package=${item%%=*}
  probe=${item#*=}
  present "$probe" || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "system-packages: the tests need ${missing[*]}: install it (apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "Installing Debian's ${missing[*]} for the tests."
wait_for_lock=(-o DPkg::Lock::Timeout=600)
# `apt-get update` takes the lists' lock, which DPkg::Lock::Timeout does not wait for.
for attempt in $(seq 120); do
  apt-get "${wait_for_lock[@]}" update -qq >/dev/null && break
  [ "$attempt" -eq 120 ] && { echo "system-packages: apt-get update kept failing" >&2; exit 1; }
  sleep 5
done
DEBIAN_FRONTEND=noninteractive apt-get "${wait_for_lock[@]}" install -y -qq "${missing[@]}" >/dev/null
