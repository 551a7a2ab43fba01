#!/usr/bin/env bash
# The whole suite, as `make test` and CI run it: two pytest runs side by side.
#
# - Everything but the fault suite, on both cores (pytest-xdist: each worker its own test
#   database, Redis prefix and, for the browser tests, its own Daphne and Chromium).
# - The fault/soak/fuzz suite (short profile), one test at a time, in a run of its own
#   beside it: its tests start Daphne, Celery and Redis processes, kill them and mostly
#   wait for what follows (it keeps a core busy under half its time), so on their own they
#   would leave the machine idle for minutes. It has its own test database and prefixes.
#
# Its output is kept in a file and printed after the parallel run's; the status is the
# worse of the two. Usage: scripts/test-suite.sh PYTHON
set -uo pipefail
python="${1:?usage: scripts/test-suite.sh PYTHON}"
serial_suites=(tests/reliability)
log="$(mktemp -t wordduel-fault-suite.XXXXXX)"
trap 'rm -f "$log"' EXIT

started=$(date +%s)
"$python" -m pytest -p no:cacheprovider "${serial_suites[@]}" >"$log" 2>&1 &
serial_pid=$!

ignores=()
for suite in "${serial_suites[@]}"; do ignores+=("--ignore=$suite"); done
"$python" -m pytest -n 2 -p no:cacheprovider "${ignores[@]}" tests
parallel_status=$?

wait "$serial_pid"
serial_status=$?
echo
echo "==== the fault suite (${serial_suites[*]}), run beside the above ===="
cat "$log"
echo "make test: both runs took $(( $(date +%s) - started )) s" \
  "(statuses: parallel $parallel_status, fault suite $serial_status)"
[ "$parallel_status" -eq 0 ] && [ "$serial_status" -eq 0 ]
