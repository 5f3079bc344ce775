#!/usr/bin/env bash
# Draws docs/report-example.png again: the demo's submissions judged on the CPU, their report,
# and a headless-Chromium screenshot of its top (summary, plots, the first submissions). Every
# path is given relative to the checkout, so the page names no folder of this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
KEVAL="${KEVAL:-build/keval}"
PY="$(bash scripts/python.sh)"
CHROMIUM="$(command -v chromium || command -v chromium-browser)"
out=out/report-example
KEVAL_PYTHON="$PY" "$KEVAL" run --suite suites/keval --submissions examples/submissions.jsonl --out "$out" \
  --device cpu --quiet
KEVAL_PYTHON="$PY" "$KEVAL" report "$out" --out "$out/report.html" \
  --title "keval report: the demo's 18 submissions (CPU)"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,2400 \
  --screenshot="$out/report.png" "file://$PWD/$out/report.html" 2>/dev/null
# 256 colours by octree (median cut dulled the green of "pass"): a third of the size
"$PY" -c "import sys; from PIL import Image; Image.open(sys.argv[1]).convert('RGB').quantize(256, method=Image.Quantize.FASTOCTREE).save(sys.argv[2], optimize=True)" \
  "$out/report.png" docs/report-example.png
echo "wrote docs/report-example.png from $out/report.html"
