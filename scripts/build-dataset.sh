#!/usr/bin/env bash
# Builds keval's latency dataset on a GPU machine (docs/dataset.md, "Reproducing it"):
#   1. keval sweep: VARIANTS variants of every golden of suites/keval (timing-first)   -> OUT/sweep
#      and, with PEERS set, of TritonBench's LLM_generated outputs (G and T)         -> OUT/sweep-tb-*
#   2. a second timing of RETIME_PER_TASK variants of every task, in another run        -> OUT/retime
#   3. exports (Parquet), the noise ceiling and the baseline predictor's figures       -> OUT/dataset*, OUT/baseline.txt
# Everything lands under OUT, which is what to carry back. A step cut short is resumed by
# running the script again with the same OUT (keval resumes a run from its keval.db).
#
# usage: scripts/build-dataset.sh OUT
# env:   KEVAL (build/keval), DEVICE (cuda), JOBS (slots per GPU, 2), GPUS (all), VARIANTS (24),
#        RETIME_PER_TASK (12), TASKS (every task), PEERS (folder holding TritonBench/, unset: skip),
#        PEER_VARIANTS (4)
set -euo pipefail
OUT=${1:?usage: scripts/build-dataset.sh OUT}
cd "$(dirname "$0")/.."
KEVAL=${KEVAL:-build/keval}
PY=$(bash scripts/python.sh)
export KEVAL_PYTHON=${KEVAL_PYTHON:-$PY}
mkdir -p "$OUT"
common=(--device "${DEVICE:-cuda}" --jobs "${JOBS:-2}" ${GPUS:+--gpus "$GPUS"} ${TASKS:+--tasks "$TASKS"})
started=$(date +%s)
stamp() { echo "[$(( $(date +%s) - started ))s] $*" | tee -a "$OUT/build.log"; }

stamp "sweep: ${VARIANTS:-24} variants per golden"
$KEVAL sweep --suite suites/keval --out "$OUT/sweep" --variants "${VARIANTS:-24}" "${common[@]}" \
  > "$OUT/sweep.txt" 2> "$OUT/sweep.err" || { tail -n 3 "$OUT/sweep.err"; exit 1; }
sources=("$OUT/sweep")

if [ -n "${PEERS:-}" ]; then
  for pair in g:Bench_G_general_purpose/output_gpt-4o_simp g:Bench_G_general_purpose/output_claude-3-5-sonnet-20240620_simp \
              t:Bench_T_general_purpose/output_gpt-4o t:Bench_T_general_purpose/output_claude-3-5-sonnet-20240620; do
    kind=tritonbench-${pair%%:*}; name=$(basename "${pair#*:}")
    stamp "sweep: $kind $name (${PEER_VARIANTS:-4} variants per program)"
    $KEVAL sweep --suite "$kind:$PEERS/TritonBench" --submissions "$kind:$PEERS/TritonBench/LLM_generated/${pair#*:}.jsonl" \
      --no-golden --variants "${PEER_VARIANTS:-4}" --timeout "${LLM_TIMEOUT:-90}" --device "${DEVICE:-cuda}" \
      --jobs "${JOBS:-2}" ${GPUS:+--gpus "$GPUS"} --out "$OUT/sweep-tb-$name" > "$OUT/sweep-tb-$name.txt" 2>&1 \
      && sources+=("$OUT/sweep-tb-$name") || stamp "  $name failed: $(tail -n 1 "$OUT/sweep-tb-$name.txt")"
  done
fi

stamp "retime: the first ${RETIME_PER_TASK:-12} variants of each task, in a second run"
"$PY" - "$OUT/sweep/variants.jsonl" "$OUT/retime-programs.jsonl" "${RETIME_PER_TASK:-12}" <<'PY'
import collections, json, sys
source, target, per_task = sys.argv[1], sys.argv[2], int(sys.argv[3])
taken = collections.Counter()
with open(source) as f, open(target, "w") as out:
    for line in f:
        item = json.loads(line)
        if taken[item["task"]] < per_task:
            taken[item["task"]] += 1
            out.write(line)
PY
$KEVAL sweep --suite suites/keval --out "$OUT/retime" --submissions "$OUT/retime-programs.jsonl" --no-golden \
  --variants 1 "${common[@]}" > "$OUT/retime.txt" 2> "$OUT/retime.err" || { tail -n 3 "$OUT/retime.err"; exit 1; }

stamp "export"
$KEVAL dataset export --from "${sources[@]}" --out "$OUT/dataset" --force
$KEVAL dataset export --from "$OUT/retime" --out "$OUT/dataset-retime" --force
stamp "baseline predictor and noise ceiling"
KEVAL=$KEVAL "$PY" bench/latency_baseline.py --data "$OUT/dataset" --retime "$OUT/dataset-retime" \
  --model "$OUT/baseline-model.pkl" | tee "$OUT/baseline.txt"
"$PY" -c "import json,sys; m=json.load(open(sys.argv[1])); print('records', m['records'], 'problems', m['problems'], 'null y', m['null_y'])" \
  "$OUT/dataset/manifest.json" | tee -a "$OUT/build.log"
stamp "done"
