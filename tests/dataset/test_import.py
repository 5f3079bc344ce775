"""keval dataset import: makora rows -> KernelBench-format submissions, re-timed by keval run."""
import json
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from conftest import REPO, run_keval

PROBLEM = '''import torch
import torch.nn as nn

batch_size = 4
dim = 64

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []
'''

CANDIDATE = '''
import triton
import triton.language as tl

@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n)
    tl.store(y_ptr + i, tl.where(x > 0, x, 0.0), mask=i < n)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), BLOCK=128)
        return y
'''


def write(path, columns):
    pq.write_table(pa.table(columns), path)


def test_import_writes_problems_and_submissions_that_keval_runs(tmp_path):
    source = tmp_path / "makora.parquet"
    write(source, {"x": [PROBLEM + CANDIDATE, PROBLEM + CANDIDATE.replace("128", "64"), "not python ("],
                   "y": [0.01, None, 0.02]})
    subs = tmp_path / "subs.jsonl"
    run_keval("dataset", "import", source, "--out", subs)
    lines = [json.loads(line) for line in subs.read_text().splitlines()]
    assert len(lines) == 2 and {line["task"] for line in lines} == {lines[0]["task"]}
    problems = tmp_path / "subs-problems" / "KernelBench" / "level1"
    (problem_file,) = problems.iterdir()
    text = problem_file.read_text()
    assert "class Model(" in text and "get_inputs" in text and "batch_size = 4" in text
    assert "ModelNew" not in text and "triton" not in text  # the candidate never runs as the reference
    out = tmp_path / "out"
    run_keval("run", "--suite", f"kernelbench:{tmp_path / 'subs-problems'}:1", "--submissions", subs,
              "--out", out, "--device", "cpu", "--quiet")
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in results] == ["pass", "pass"]
    export = tmp_path / "export"
    run_keval("dataset", "export", "--from", out, "--out", export, "--format", "jsonl")
    rows = [json.loads(line) for f in ("train", "test") for line in (export / f"{f}.jsonl").read_text().splitlines()]
    assert rows and all("class Model(" in r["x"] and "class ModelNew(" in r["x"] for r in rows)
    assert {r["suite"] for r in rows} == {"kernelbench"}


def test_sample_takes_that_many_rows_the_same_way_twice(tmp_path):
    source = tmp_path / "m.parquet"
    write(source, {"x": [PROBLEM + CANDIDATE.replace("128", str(2 ** k)) for k in range(4, 10)], "y": [1.0] * 6})
    for name in ("a", "b"):
        run_keval("dataset", "import", source, "--sample", "3", "--out", tmp_path / f"{name}.jsonl")
    a, b = ((tmp_path / f"{n}.jsonl").read_text() for n in ("a", "b"))
    assert a == b and len(a.splitlines()) == 3


def test_a_parquet_without_x_or_with_a_text_y_is_one_line_naming_file_and_field(tmp_path):
    no_x = tmp_path / "no_x.parquet"
    write(no_x, {"code": ["a"], "y": [1.0]})
    proc = run_keval("dataset", "import", no_x, "--out", tmp_path / "s.jsonl", check=False)
    assert proc.returncode != 0 and len(proc.stderr.strip().splitlines()) == 1
    assert f"{no_x}: field `x`" in proc.stderr
    text_y = tmp_path / "text_y.parquet"
    write(text_y, {"x": [PROBLEM + CANDIDATE], "y": ["fast"]})
    proc = run_keval("dataset", "import", text_y, "--out", tmp_path / "s.jsonl", check=False)
    assert proc.returncode != 0 and len(proc.stderr.strip().splitlines()) == 1
    assert f"{text_y}: field `y` (row 0)" in proc.stderr


def test_the_module_answers_without_the_controller_too(tmp_path):
    source = tmp_path / "m.parquet"
    write(source, {"x": [PROBLEM + CANDIDATE], "y": [1.0]})
    proc = subprocess.run([sys.executable, "-m", "keval_dataset", "import", "--file", str(source),
                           "--out", str(tmp_path / "s.jsonl")], cwd=REPO / "runner", capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["submissions"] == 1
