"""Scale tests: sharded runs and merge, a real one-node Slurm, the HTTP service (CPU mode)."""
import hashlib
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))


def keval_env(extra=None):
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    env.update(extra or {})
    return env


def run_keval(*args, check=True, env=None, timeout=600):
    proc = subprocess.run([KEVAL, *map(str, args)], cwd=REPO, env=env or keval_env(),
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"keval {' '.join(map(str, args))} exited {proc.returncode}:\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc


def read_results(out):
    return [json.loads(line) for line in (pathlib.Path(out) / "results.jsonl").read_text().splitlines()]


def shard_of(task, code, count):
    """keval's rule (src/engine/resume/shard.cc): the content hash's first 64 bits modulo N."""
    digest = hashlib.sha256((task + "\n" + code).encode()).hexdigest()
    return int(digest[:16], 16) % count


def example_lines(tasks=("vector_add", "relu")):
    lines = []
    for line in (REPO / "examples" / "submissions.jsonl").read_text().splitlines():
        if json.loads(line)["task"] in tasks:
            lines.append(json.loads(line))
    return lines


# A correct vector_add that takes a while to load: a shard killed while judging it has
# finished the ones before it.
SLOW_VECTOR_ADD = """import time
import torch
import triton
import triton.language as tl

time.sleep(5)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vector_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
"""


@pytest.fixture()
def submissions_file(tmp_path):
    lines = example_lines()
    path = tmp_path / "subs.jsonl"
    path.write_text("".join(json.dumps(l) + "\n" for l in lines))
    return path, lines
