"""Exported `x` is one program in makora's shape that runs on its own (docs/dataset.md, "x"):
sampled rows are run in a fresh interpreter on the CPU (TRITON_INTERPRET=1), comparing
ModelNew()(*get_inputs()) with Model()(*get_inputs()) at the task's tolerance."""
import json
import random
import shutil

from conftest import BROKEN_RELU, REPO, run_keval
from keval_dataset import makora_form
from keval_dataset.export import export
from standalone import golden_record, run_row, write_records

# Tasks whose references differ in kind: 4-D inputs, integer targets, int8 weights, tuple
# outputs, an in-place task, helpers and module constants in reference.py.
VARIED = ("rope", "cross_entropy", "w8a16_matmul", "topk", "kv_cache_append", "moe_permute")
SAMPLE_SEED = 44


def exported_rows(folder) -> list:
    return [json.loads(line) for split in ("train", "test")
            for line in (folder / f"{split}.jsonl").read_text().splitlines()]


def test_rows_of_a_run_run_standalone_and_model_new_is_the_candidate(cpu_run, tmp_path):
    out = tmp_path / "export"
    run_keval("dataset", "export", "--from", cpu_run, "--out", out, "--format", "jsonl")
    rows = exported_rows(out)
    assert rows and all(r["x_form"] == "keval_task" for r in rows)
    codes = {f"{t}-golden": (REPO / "suites/keval" / t / "golden.py").read_text() for t in ("relu", "row_sum")}
    codes["relu-wrong"] = BROKEN_RELU
    for row in rows:
        problem, code = row["x"].split(makora_form.DELIMITER + "\n", 1)
        assert code == codes[row["submission_id"]], "the delimiter gives the submitted code back unchanged"
        assert "class Model(" in problem and "class ModelNew(" in problem and "def get_inputs(" in problem
    sample = random.Random(SAMPLE_SEED).sample(rows, min(4, len(rows)))
    sample += [next(r for r in rows if r["submission_id"] == s) for s in ("relu-golden", "row_sum-golden", "relu-wrong")]
    for row in sample:
        result = run_row(row, tmp_path)
        assert result["match"] == (row["verdict"] == "pass"), (row["submission_id"], row["dtype"], result)


def test_a_sample_of_the_suites_goldens_run_standalone(tmp_path):
    tasks = sorted(p.name for p in (REPO / "suites/keval").iterdir() if (p / "task.toml").exists())
    others = [t for t in tasks if t not in VARIED]
    sample = list(VARIED) + random.Random(SAMPLE_SEED).sample(others, 4)
    export(write_records(tmp_path / "records.jsonl", [golden_record(t) for t in sample]), str(tmp_path / "e"),
           "jsonl", 17, False, [])
    rows = exported_rows(tmp_path / "e")
    assert sorted(r["task"] for r in rows) == sorted(sample)
    for row in rows:
        assert row["x_form"] == "keval_task"
        result = run_row(row, tmp_path)
        assert result["match"], (row["task"], result)


SHADOWING = BROKEN_RELU.replace("def relu(x):", "def kernel_function(x):").replace(
    "tl.load(x_ptr + i, mask=i < n) * 2.0", "tl.maximum(tl.load(x_ptr + i, mask=i < n), 0.0)") + '''

def reference(x):  # a candidate's own check helpers, named as keval's reference's
    return x * 0


def make_inputs(n):
    return None
'''


def test_a_submission_redefining_the_references_names_changes_neither_model_nor_inputs(tmp_path):
    # SHADOWING defines `kernel_function` (keval's fallback entry), not `relu`
    record = golden_record("relu", code=SHADOWING, dtype="float32")
    export(write_records(tmp_path / "r.jsonl", [record]), str(tmp_path / "e"), "jsonl", 17, False, [])
    (row,) = exported_rows(tmp_path / "e")
    assert "return kernel_function(*args)" in row["x"]
    assert run_row(row, tmp_path)["match"], "Model is still keval's reference; ModelNew the submission"


def test_rows_whose_reference_is_unknown_or_changed_keep_the_code_after_the_delimiter(tmp_path):
    suite = tmp_path / "mysuite"
    shutil.copytree(REPO / "suites/keval/relu", suite / "relu")
    judged = golden_record("relu", suite="mysuite", eval_key="a")
    future = golden_record("relu", suite="mysuite", eval_key="b",
                           program="from __future__ import annotations\n" + judged["program"])
    unknown = golden_record("relu", suite="elsewhere", eval_key="c")
    records = write_records(tmp_path / "r.jsonl", [judged, future, unknown])
    export(records, str(tmp_path / "found"), "jsonl", 17, False, [], [str(suite)])
    forms = {r["eval_key"]: r["x_form"] for r in exported_rows(tmp_path / "found")}
    assert forms == {"a": "keval_task", "b": "code_only:future_import", "c": "code_only:task_not_found"}
    (suite / "relu" / "reference.py").write_text((suite / "relu" / "reference.py").read_text() + "\n# edited\n")
    export(records, str(tmp_path / "changed"), "jsonl", 17, False, [], [str(suite)])
    rows = {r["eval_key"]: r for r in exported_rows(tmp_path / "changed")}
    assert rows["a"]["x_form"] == "code_only:task_changed", "an edited task's reference is not the judged one"
    for row in rows.values():
        assert makora_form.candidate_code(row["x"]) == {"a": judged, "b": future, "c": unknown}[row["eval_key"]]["program"]
        assert row["x"].startswith("# keval problem: mysuite/relu/" if row["eval_key"] != "c" else "# keval problem: elsewhere/")


def test_export_takes_the_suite_folders_to_wrap_with(cpu_run, tmp_path):
    suite = tmp_path / "keval"  # named as the run's suite; its relu edited since the run
    for task in ("relu", "row_sum"):
        shutil.copytree(REPO / "suites/keval" / task, suite / task)
    (suite / "relu" / "reference.py").write_text((suite / "relu" / "reference.py").read_text() + "\n# edited\n")
    out = tmp_path / "export"
    run_keval("dataset", "export", "--from", cpu_run, "--out", out, "--format", "jsonl", "--suite", suite)
    forms = {(r["task"], r["x_form"]) for r in exported_rows(out)}
    assert forms == {("relu", "code_only:task_changed"), ("row_sum", "keval_task")}
    assert str(tmp_path) not in (out / "README.md").read_text() + (out / "manifest.json").read_text()
