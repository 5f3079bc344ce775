#!/usr/bin/env bash
# keval serve under load, as on the H200 (bench/runs/2026-12-02-session-15.md): CLIENTS concurrent clients
# (bench/serve_load.py), one SIGKILL at KILL_AT seconds and a restart, then one client alone;
# afterwards the queue and the store are read for lost or doubled work. KILL_AT=none: no kill
# (to compare set-ups, e.g. LANES=8 JOBS=8 against LANES=2); IDLE_REQUESTS=0: no lone client.
#   LOG=DIR KEVAL=PATH DEVICE=cuda JOBS=8 LANES=1 CLIENTS=64 REQUESTS=4 KILL_AT=150 LOAD_S=330 \
#     bash scripts/serve-load.sh
# Writes LOG/load.json, load.txt, idle.json, idle.txt, watch.txt (queue counts every 5 s),
# queue.txt (jobs, keys, attempts, evaluations, job seconds) and serve-tail.txt.
set -u
cd "$(dirname "$0")/.."
LOG=${LOG:-serve-load-logs}; mkdir -p "$LOG"; LOG=$(realpath "$LOG")
KEVAL=$(realpath "${KEVAL:-build/keval}"); PY=${KEVAL_PYTHON:-python3}
export KEVAL_PYTHON=$PY PYTHONUNBUFFERED=1
DEVICE=${DEVICE:-cuda}; LANES=${LANES:-1}; CLIENTS=${CLIENTS:-64}; REQUESTS=${REQUESTS:-4}
KILL_AT=${KILL_AT:-150}; LOAD_S=${LOAD_S:-330}; PORT=${PORT:-8642}
S=${SERVE_OUT:-/var/tmp/kv-serve-load}; rm -rf "$S"; mkdir -p "$S"
serve() {
  "$KEVAL" serve --suite suites/keval --device "$DEVICE" ${JOBS:+--jobs "$JOBS"} --lanes "$LANES" --port "$PORT" \
    --out "$S" >> "$LOG/serve.log" 2>&1 &
  echo $! > "$S.pid"
}
up() {
  for _ in $(seq 120); do
    "$PY" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/v1/health', timeout=2)" 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}
t0=$(date +%s)
serve; up || { echo "server did not come up"; tail "$LOG/serve.log"; exit 1; }
echo "server up after $(( $(date +%s) - t0 )) s" > "$LOG/watch.txt"
rm -f "$S.stop"
"$PY" - "$PORT" "$S.stop" >> "$LOG/watch.txt" 2>&1 <<'PY' &
import json, os, sys, time, urllib.request
t0 = time.time()
while not os.path.exists(sys.argv[2]):
    try:
        h = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/health", timeout=3))
        print(f"{time.time() - t0:6.0f}s queue {h['queue']} load {os.getloadavg()[0]:.1f}", flush=True)
    except Exception as e:  # noqa: BLE001 - down between the kill and the restart
        print(f"{time.time() - t0:6.0f}s down ({type(e).__name__})", flush=True)
    time.sleep(5)
PY
"$PY" bench/serve_load.py --url "http://127.0.0.1:$PORT" --clients "$CLIENTS" --requests "$REQUESTS" \
  --deadline "$LOAD_S" --json "$LOG/load.json" > "$LOG/load.txt" 2>&1 &
load=$!
if [ "$KILL_AT" != none ]; then
  sleep "$KILL_AT"
  kill -9 "$(cat "$S.pid")"; echo "SIGKILL at $(( $(date +%s) - t0 )) s" >> "$LOG/watch.txt"
  sleep 2; serve; up; echo "restarted, up at $(( $(date +%s) - t0 )) s" >> "$LOG/watch.txt"
fi
wait "$load"; echo "load ended at $(( $(date +%s) - t0 )) s" >> "$LOG/watch.txt"
# one client alone, full candidates only (it may first wait for the load's last jobs)
if [ "${IDLE_REQUESTS:-6}" -gt 0 ]; then
  "$PY" bench/serve_load.py --url "http://127.0.0.1:$PORT" --clients 1 --requests "${IDLE_REQUESTS:-6}" --cheap-share 0 \
    --seed 7 --deadline 120 --json "$LOG/idle.json" > "$LOG/idle.txt" 2>&1
fi
touch "$S.stop"
kill -TERM "$(cat "$S.pid")"; wait 2>/dev/null
"$PY" - "$S" > "$LOG/queue.txt" 2>&1 <<'PY'
import collections, sqlite3, sys
out = sys.argv[1]
rows = sqlite3.connect(f"{out}/queue.db").execute("SELECT key, state, attempts, result_json FROM jobs").fetchall()
print("jobs", len(rows), "distinct keys", len({r[0] for r in rows}))
print("states", dict(collections.Counter(r[1] for r in rows)), "attempts", dict(collections.Counter(r[2] for r in rows)))
with open(f"{out}/results-of-jobs.jsonl", "w") as f:
    f.writelines(r[3] + "\n" for r in rows if r[3])
n, distinct = sqlite3.connect(f"{out}/keval.db").execute(
    "SELECT count(*), count(DISTINCT eval_key) FROM evaluations").fetchone()
print("evaluations", n, "distinct keys", distinct)
PY
"$PY" bench/job_seconds.py "$S/results-of-jobs.jsonl" >> "$LOG/queue.txt" 2>&1
"$PY" bench/job_seconds.py "$S/results-of-jobs.jsonl" --verdict pass >> "$LOG/queue.txt" 2>&1
tail -n 40 "$LOG/serve.log" > "$LOG/serve-tail.txt"; rm -f "$LOG/serve.log"
cat "$LOG/load.txt" "$LOG/queue.txt"; [ -f "$LOG/idle.txt" ] && cat "$LOG/idle.txt"
