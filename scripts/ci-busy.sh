#!/usr/bin/env bash
# CI on a busy machine: RUNS fresh clones of HEAD each run `CI=true bash .ci/run` one after
# another while a second clone runs `make test` over and over beside them, as a loaded CI host
# would. Prints each run's exit status and seconds; exits non-zero unless every run passed.
# Usage: scripts/ci-busy.sh [RUNS] [WORK_DIR]   (defaults: 3, a new folder under /tmp)
set -uo pipefail
runs=${1:-3}
work=${2:-$(mktemp -d /tmp/keval-ci-busy.XXXXXX)}
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse HEAD)
mkdir -p "$work"
echo "ci-busy: commit $commit, $runs runs, logs in $work, $(nproc) cores"

git clone -q "$repo" "$work/load" && git -C "$work/load" checkout -q "$commit"
# The load runs in its own session so that one kill stops it and everything it started.
setsid bash -c 'n=0; while :; do n=$((n+1)); CI=true make -C "$1" test > "$1/../load-$n.log" 2>&1; echo "load run $n rc=$?" >> "$1/../load.txt"; done' \
  _ "$work/load" &
load_pid=$!
run_pid=""
stop_all() {  # the load, and the run under way when this script is stopped
  for group in $load_pid $run_pid; do kill -TERM -- "-$group" 2>/dev/null; done
  sleep 2
  for group in $load_pid $run_pid; do kill -KILL -- "-$group" 2>/dev/null; done
}
trap stop_all EXIT
trap 'exit 130' INT TERM

failed=0
for i in $(seq 1 "$runs"); do
  dir="$work/run-$i"
  git clone -q "$repo" "$dir" && git -C "$dir" checkout -q "$commit"
  start=$(date +%s)
  setsid bash -c 'cd "$1" && CI=true bash .ci/run' _ "$dir" > "$work/run-$i.log" 2>&1 &
  run_pid=$!
  wait "$run_pid"
  rc=$?
  run_pid=""
  echo "run $i: rc=$rc, $(( $(date +%s) - start )) s, $(grep -cE '^load run' "$work/load.txt" 2>/dev/null || echo 0) load runs finished so far"
  [ "$rc" = 0 ] || { failed=1; tail -n 30 "$work/run-$i.log"; }
done
echo "load beside it:"; cat "$work/load.txt" 2>/dev/null
exit "$failed"
