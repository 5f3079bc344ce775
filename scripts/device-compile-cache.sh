#!/usr/bin/env bash
# One device call: the predictor's feature cache of a dataset (its dry launches and its kernels
# compiled for sm_90, docs/dataset.md "Compiled features on a borrowed machine") built with all
# cores into $OUT/features, stopped DEADLINE_S seconds after it starts so the call brings it back.
#
# usage: OUT=DIR scripts/device-compile-cache.sh [ROWS] [EARLIER]
#   ROWS     `python -m keval_dataset compile-rows`' file (default build/compile-rows.jsonl; carry it),
#            or an export folder where pyarrow is installed
#   EARLIER  a features folder brought back by an earlier call (carried): resumed, not redone
# env: WORKERS (default: every core), DEADLINE_S (default 540, for a 600 s call)
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-build/compile-rows.jsonl}
OUT=${OUT:?set OUT to the folder to bring back}
mkdir -p "$OUT/features"
if [ -n "${2:-}" ]; then
  for file in "$2"/*.jsonl; do [ -e "$OUT/features/$(basename "$file")" ] || cp "$file" "$OUT/features/"; done
fi
# the features are those a machine without a GPU computes: no row's host code sees this one
export CUDA_VISIBLE_DEVICES=
PY=$(bash scripts/python.sh --no-create) || { echo "no python with torch and triton" >&2; exit 1; }
"$PY" -c 'import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__)' > "$OUT/env.txt"
PYTHONPATH=runner${PYTHONPATH:+:$PYTHONPATH} "$PY" -m keval_dataset compile-cache --data "$ROWS" --out "$OUT/features" \
  --workers "${WORKERS:-$(nproc)}" --deadline-s "${DEADLINE_S:-540}" | tee "$OUT/compile-cache.json"
