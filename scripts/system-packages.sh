#!/usr/bin/env bash
# Install the Debian packages the tests use, when missing: scripts/system-packages.sh PACKAGE...
#
# Run by `make test` (and `make check`) before any test starts; the tests themselves never
# install anything, they only fail saying what is missing. Each PACKAGE is also the command
# it provides (chromium, caddy). apt waits for another apt process's lock instead of failing.
set -euo pipefail

missing=()
for package in "$@"; do
  command -v "$package" >/dev/null 2>&1 || missing+=("$package")
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
