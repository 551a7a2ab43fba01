#!/usr/bin/env bash
# Issue 14's proof: N fresh-clone CI runs of one commit, BUSY of them beside two CPU-bound
# processes (ended by their PIDs): the last BUSY, or the first with BUSY_FIRST=1. One summary
# line per run: wall time and counts. It stops at the first red run.
#   scripts/ci-repeat.sh [COMMIT] [RUNS] [BUSY]   (defaults: HEAD 10 5; output in .ci-repeat/)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$repo" rev-parse "${1:-HEAD}")
runs=${2:-10}
busy=${3:-5}
out="$repo/.ci-repeat"
mkdir -p "$out"
for i in $(seq 1 "$runs"); do
  dir=$(mktemp -d)
  git clone -q "$repo" "$dir/p" && git -C "$dir/p" checkout -q "$sha"
  burners=""
  if { [ "${BUSY_FIRST:-0}" = 1 ] && [ "$i" -le "$busy" ]; } ||
     { [ "${BUSY_FIRST:-0}" != 1 ] && [ "$i" -gt $((runs - busy)) ]; }; then
    python3 -c "while True: pass" & b1=$!
    python3 -c "while True: pass" & b2=$!
    burners="$b1 $b2"
  fi
  start=$(date +%s)
  (cd "$dir/p" && CI=true bash .ci/run) > "$out/run$i.log" 2>&1
  rc=$?
  end=$(date +%s)
  [ -n "$burners" ] && kill $burners
  counts=$(grep -E "^=+ .*(passed|failed).* in " "$out/run$i.log" | tr -d '=' | tr '\n' ';')
  echo "run $i ${sha:0:7} busy=$([ -n "$burners" ] && echo yes || echo no) rc=$rc wall=$((end - start))s $counts" \
    | tee -a "$out/summary.txt"
  rm -rf "$dir"
  [ "$rc" -ne 0 ] && exit 1
done
