"""Dataset tests: the real `keval` binary and runner (CPU interpreter), real SQLite, pyarrow and
scikit-learn. Fixtures in makora's schema are written here; no fetched data."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
sys.path.insert(0, str(REPO / "runner"))


@pytest.fixture(autouse=True, scope="session")
def feature_cache(tmp_path_factory):
    """The predictor's launch and compilation cache (feature_table.py) in a folder of the test's own."""
    os.environ["KEVAL_FEATURE_CACHE"] = str(tmp_path_factory.mktemp("feature-cache"))


def run_keval(*args, check=True, timeout=900):
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([KEVAL, *map(str, args)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"keval {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


BROKEN_RELU = """import triton
import triton.language as tl

@triton.jit
def _k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2.0, mask=i < n)

def relu(x):
    import torch
    y = torch.empty_like(x)
    _k[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y
"""


@pytest.fixture(scope="session")
def cpu_run(tmp_path_factory):
    """A real CPU run: the goldens of two tasks (pass) and a wrong relu (mismatch)."""
    folder = tmp_path_factory.mktemp("run")
    subs = folder / "subs.jsonl"
    lines = [{"task": t, "code": (REPO / "suites/keval" / t / "golden.py").read_text(), "id": f"{t}-golden"}
             for t in ("relu", "row_sum")]
    lines.append({"task": "relu", "code": BROKEN_RELU, "id": "relu-wrong"})
    subs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = folder / "out"
    run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", out, "--device", "cpu",
              "--tasks", "relu,row_sum", "--quiet")
    return out
