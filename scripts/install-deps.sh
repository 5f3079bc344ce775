#!/usr/bin/env bash
# Installs what keval needs to build and run on a Debian machine. Each step is skipped when
# its part is already present, so this also works offline on a machine that has them
# (e.g. the GPU machine, where python3 already has torch and Triton and a build is carried).
set -euo pipefail

need_apt=()
for header in /usr/include/CLI/CLI.hpp /usr/include/nlohmann/json.hpp /usr/include/toml++/toml.h \
              /usr/include/gtest/gtest.h /usr/include/sqlite3.h /usr/include/openssl/evp.h; do
  [ -e "$header" ] || need_apt=(libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libgtest-dev \
                                libsqlite3-dev libssl-dev)
done
# A one-node Slurm that tests/scale starts on localhost (keval slurm).
{ command -v sbatch && [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ]; } >/dev/null 2>&1 || need_apt+=(slurm-wlm)
[ -x /usr/sbin/munged ] || need_apt+=(munge)
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
/usr/bin/python3 -m venv --help >/dev/null 2>&1 || need_apt+=(python3-venv)
# The HTML report's browser test (tests/e2e/test_report.py) loads the page in headless Chromium.
command -v chromium >/dev/null || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ] && [ "${KEVAL_SKIP_APT:-0}" != 1 ]; then
  if [ "${KEVAL_PREBUILT:-0}" = 1 ]; then
    echo "install-deps: using a prebuilt keval; skipping apt (${need_apt[*]})"
  else
    echo "install-deps: apt-get install ${need_apt[*]}"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need_apt[@]}" >/dev/null
  fi
fi

# Python: an interpreter that has torch and triton (see scripts/python.sh).
py=$(bash "$(dirname "$0")/python.sh" --no-create || true)
if [ -z "$py" ]; then
  venv=$(bash "$(dirname "$0")/python.sh")
  venv=${venv%/bin/python}
  base=/usr/bin/python3
  [ -x "$base" ] || base=python3
  echo "install-deps: creating $venv (torch==2.13.0 CPU build, triton, numpy, ml_dtypes, pytest, pytest-timeout)"
  "$base" -m venv "$venv"
  "$venv/bin/pip" install -q torch==2.13.0 triton numpy ml_dtypes pytest pytest-timeout
fi
py=$(bash "$(dirname "$0")/python.sh")
"$py" -c "import pytest" 2>/dev/null || "$py" -m pip install -q pytest
# make test runs the suites of keval runs on two workers (XDIST in the Makefile)
"$py" -c "import xdist" 2>/dev/null || "$py" -m pip install -q pytest-xdist
# and gives every test a time limit (pytest.ini): a hung test fails instead of holding CI
"$py" -c "import pytest_timeout" 2>/dev/null || "$py" -m pip install -q pytest-timeout
# Tests only: the protocol's schemas checked as JSON Schema (docs/protocol.md); the runner checks
# requests without it, and those tests skip without it.
"$py" -c "import jsonschema" 2>/dev/null || "$py" -m pip install -q jsonschema || echo "install-deps: no jsonschema"
# The latency dataset (keval dataset / predict, docs/dataset.md): Parquet and the baseline predictor.
"$py" -c "import pyarrow, sklearn, scipy" 2>/dev/null || "$py" -m pip install -q pyarrow scikit-learn scipy
# export's near-duplicate check (MinHash, near_duplicates.py) and the predictor's lambdarank (LightGBM)
"$py" -c "import datasketch, lightgbm" 2>/dev/null || "$py" -m pip install -q datasketch lightgbm
# keval generate's code metrics (docs/generate.md): CodeBLEU (its tree-sitter grammar must match
# the tree-sitter codebleu pins: 0.21 for tree-sitter 0.22) and radon. Without them the metrics
# are null and a run says so, so an offline machine goes on.
"$py" -c "import codebleu, tree_sitter_python, radon" 2>/dev/null ||
  "$py" -m pip install -q codebleu "tree-sitter-python<0.23" radon ||
  echo "install-deps: codebleu/radon not installed: code metrics will be null"
# `keval report`'s plots (SVG drawn by matplotlib; Pillow, which it brings, reads the test's screenshot).
"$py" -c "import matplotlib, PIL" 2>/dev/null || "$py" -m pip install -q matplotlib ||
  echo "install-deps: matplotlib not installed: keval report will not run"
# CPU mode's real bfloat16 (runner/keval_runner/interpreter/interpreter_bfloat16.py). Without it bfloat16
# cases still run, on the interpreter's broken bfloat16, so a machine that cannot install it
# (the offline GPU machine, which never interprets) goes on.
"$py" -c "import ml_dtypes" 2>/dev/null || "$py" -m pip install -q ml_dtypes ||
  echo "install-deps: ml_dtypes not installed: CPU mode will misjudge bfloat16 cases"
echo "install-deps: python is $py"
