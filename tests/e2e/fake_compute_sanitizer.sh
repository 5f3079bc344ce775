#!/usr/bin/env bash
# Stands in for NVIDIA's compute-sanitizer in CPU tests: takes its options, writes a memcheck-style
# log with $FAKE_MEMCHECK_ERRORS errors to --log-file, then runs the wrapped command.
log=""
while [[ $# -gt 0 && $1 == --* ]]; do
  [[ $1 == --log-file ]] && log=$2
  shift 2
done
errors=${FAKE_MEMCHECK_ERRORS:-0}
{
  echo "========= COMPUTE-SANITIZER"
  for ((i = 0; i < errors; i++)); do
    echo "========= Invalid __global__ write of size 4 bytes"
    echo "=========     Address 0x7f0000001000 is out of bounds"
  done
  echo "========= ERROR SUMMARY: $errors error(s)"
} > "$log"
exec "$@"
