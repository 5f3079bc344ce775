#!/usr/bin/env bash
# Builds keval's latency dataset on a GPU machine (docs/dataset.md, "Reproducing it"):
#   1. keval sweep: VARIANTS variants of every golden of suites/keval (timing-first)   -> OUT/sweep
#      and, with PEERS set, of TritonBench's LLM_generated outputs (G and T)         -> OUT/sweep-tb-*
#   2. the first RETIME_PER_TASK variants of every golden timed again, in another run  -> OUT/retime
#   3. exports (Parquet), the noise ceiling and the baseline predictor's figures       -> OUT/dataset*, OUT/baseline.txt
# Everything lands under OUT, which is what to carry back. A step cut short is resumed by
# running the script again with the same OUT (keval resumes a run from its keval.db).
#
# usage: scripts/build-dataset.sh OUT
# env:   KEVAL (build/keval), DEVICE (cuda), JOBS (slots per GPU, 12), MAX_SECONDS (0.1), GPUS (all), VARIANTS (20),
#        RETIME_PER_TASK (14), TASKS (every task), PEERS (folder holding TritonBench/, unset: skip),
#        PEER_VARIANTS (4)
set -euo pipefail
OUT=${1:?usage: scripts/build-dataset.sh OUT}
cd "$(dirname "$0")/.."
KEVAL=${KEVAL:-build/keval}
PY=$(bash scripts/python.sh)
export KEVAL_PYTHON=${KEVAL_PYTHON:-$PY}
mkdir -p "$OUT"
common=(--device "${DEVICE:-cuda}" --jobs "${JOBS:-12}" --max-seconds "${MAX_SECONDS:-0.1}" ${GPUS:+--gpus "$GPUS"} ${TASKS:+--tasks "$TASKS"})
started=$(date +%s)
stamp() { echo "[$(( $(date +%s) - started ))s] $*" | tee -a "$OUT/build.log"; }

stamp "sweep: ${VARIANTS:-20} variants per golden"
$KEVAL sweep --suite suites/keval --out "$OUT/sweep" --variants "${VARIANTS:-20}" "${common[@]}" \
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

stamp "retime: the first ${RETIME_PER_TASK:-14} variants of each golden again, in a second run"
# the same seed: a smaller sweep's variants are the first ones of the larger (variants.py)
$KEVAL sweep --suite suites/keval --out "$OUT/retime" --variants "${RETIME_PER_TASK:-14}" "${common[@]}" \
  > "$OUT/retime.txt" 2> "$OUT/retime.err" || { tail -n 3 "$OUT/retime.err"; exit 1; }

stamp "export"
# each with the other as --retime: every label's interval widened to the run-to-run spread
$KEVAL dataset export --from "$OUT/retime" --out "$OUT/dataset-retime" --force
$KEVAL dataset export --from "${sources[@]}" --out "$OUT/dataset" --retime "$OUT/dataset-retime" --force
$KEVAL dataset export --from "$OUT/retime" --out "$OUT/dataset-retime" --retime "$OUT/dataset" --force
stamp "baseline predictor and noise ceiling"
KEVAL=$KEVAL "$PY" bench/latency_baseline.py --data "$OUT/dataset" --retime "$OUT/dataset-retime" \
  --model "$OUT/baseline-model.pkl" | tee "$OUT/baseline.txt"
"$PY" -c "import json,sys; m=json.load(open(sys.argv[1])); print('records', m['records'], 'problems', m['problems'], 'null y', m['null_y'])" \
  "$OUT/dataset/manifest.json" | tee -a "$OUT/build.log"
stamp "done"
