"""Held-out shapes: a kernel tuned to a task's listed shapes passes them and fails on the shapes
each run draws from the task's `[held_out]` ranges (docs/task-format.md)."""
import json
import pathlib
import shutil

from conftest import REPO, read_results, run_keval

# row_sum with its block looked up from the listed widths (37x1001, 64x700, 4x10007): one
# block covers a listed row, and any other width falls back to 1024 columns, never looped.
TUNED_ROW_SUM = '''
import torch
import triton
import triton.language as tl

BLOCKS = {1001: 1024, 700: 1024, 10007: 16384, 8192: 8192}


@triton.jit
def _row_sum(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x.to(tl.float32), axis=0).to(out_ptr.dtype.element_ty))


def row_sum(x):
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    _row_sum[(rows,)](x, out, cols, BLOCK=BLOCKS.get(cols, 1024))
    return out
'''

# widths the fallback block cannot cover, so every draw shows the tuning
HELD_OUT = '''
[held_out]
size = "rows * cols"
max_size = 40000
params = { rows = [1, 8], cols = [1100, 5000] }
'''


def suite_with_row_sum(tmp_path):
    task = tmp_path / "suite" / "row_sum"
    shutil.copytree(REPO / "suites" / "keval" / "row_sum", task)
    toml = (task / "task.toml").read_text()
    toml = toml.split("\n[held_out]")[0]  # the suite's own ranges, replaced by the ones above
    (task / "task.toml").write_text(toml + HELD_OUT)
    return task.parent


def test_a_kernel_tuned_to_the_listed_shapes_fails_on_the_held_out_ones(tmp_path):
    suite = suite_with_row_sum(tmp_path)
    submissions = tmp_path / "subs.jsonl"
    submissions.write_text(json.dumps({"task": "row_sum", "id": "tuned", "code": TUNED_ROW_SUM}) + "\n")
    common = ["--suite", suite, "--submissions", submissions, "--device", "cpu", "--no-timing", "--jobs", "1"]

    run_keval("run", *common, "--out", tmp_path / "listed", "--held-out", "0")
    [listed] = read_results(tmp_path / "listed")
    assert listed["verdict"] == "pass", listed["reasons"]
    assert not any(c["case"].startswith("held_out_") for c in listed["cases"])

    run_keval("run", *common, "--out", tmp_path / "held_out")
    [held_out] = read_results(tmp_path / "held_out")
    assert held_out["verdict"] == "mismatch", held_out["reasons"]
    drawn = [c["case"] for c in held_out["cases"] if c["case"].startswith("held_out_")]
    assert len(drawn) == 2, held_out["cases"]  # --held-out's default, one dtype each
    for name in drawn:
        label, rows, cols = name.split(" ")
        assert rows.startswith("rows=") and 1 <= int(rows[5:]) <= 8, name
        assert cols.startswith("cols=") and 1100 <= int(cols[5:]) <= 5000, name
    # the reason names the drawn shape: it is reproduced by listing it as a case
    assert any(f"case {drawn[0]} " in reason for reason in held_out["reasons"]), held_out["reasons"]
    listed_cases = {c["case"] for c in held_out["cases"]} - set(drawn)
    assert listed_cases == {c["case"] for c in listed["cases"]}


def test_a_bad_held_out_range_is_a_one_line_error_naming_file_line_and_field(tmp_path):
    suite = suite_with_row_sum(tmp_path)
    toml = suite / "row_sum" / "task.toml"
    toml.write_text(toml.read_text().replace("rows = [1, 8]", "rows = [8, 1]"))
    proc = run_keval("validate", "--suite", suite, "--files-only", check=False)
    assert proc.returncode != 0
    line = next(n for n, text in enumerate(toml.read_text().splitlines(), 1) if "rows = [8, 1]" in text)
    assert f"row_sum/task.toml:{line}: held_out.params.rows: lo 8 is above hi 1" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
