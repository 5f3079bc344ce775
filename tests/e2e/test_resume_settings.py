"""Resuming into an existing --out reuses a stored result only under the settings it was made
with: a changed setting re-evaluates, the same settings still reuse."""
import json
import os
import re
import shutil
import sqlite3
import tempfile

import pytest

from conftest import REPO, read_results, run_keval


@pytest.fixture
def relu_case(tmp_path):
    """A one-task copy of the suite (its task.toml may be edited) and one correct submission.
    Under /tmp with mode 0755: jobs may run under their own uid, which must reach the suite."""
    root = tempfile.mkdtemp(prefix="keval_resume_")
    os.chmod(root, 0o755)
    shutil.copytree(REPO / "suites" / "keval" / "relu", os.path.join(root, "suite", "relu"))
    line = next(json.loads(l) for l in (REPO / "examples" / "submissions.jsonl").read_text().splitlines()
                if json.loads(l)["id"] == "relu_correct")
    subs = tmp_path / "relu.jsonl"
    subs.write_text(json.dumps(line) + "\n")
    yield os.path.join(root, "suite"), subs, tmp_path / "out"
    shutil.rmtree(root, ignore_errors=True)


def rerun(suite, subs, out, *settings):
    run_keval("run", "--suite", suite, "--submissions", subs, "--out", out, "--device", "cpu", *settings)
    assert [r["verdict"] for r in read_results(out)] == ["pass"]
    return json.loads((out / "summary.json").read_text())["resumed"]


def evaluations(out):
    return sqlite3.connect(out / "keval.db").execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]


def test_a_changed_setting_re_evaluates_and_the_same_settings_reuse(relu_case):
    suite, subs, out = relu_case
    assert rerun(suite, subs, out, "--no-timing") == 0
    assert rerun(suite, subs, out, "--no-timing") == 1  # same settings: reused
    changed = [("--no-timing", "--seeds", "3"),
               ("--no-timing", "--min-own-share", "0.7"),
               (),  # timing on
               ("--baseline", "eager")]
    for settings in changed:
        assert rerun(suite, subs, out, *settings) == 0, settings
    assert rerun(suite, subs, out, "--no-timing", "--seeds", "3") == 1  # its stored result is found again
    assert evaluations(out) == 1 + len(changed)


def edit(path, pattern, replacement):
    text = open(path).read()
    edited = re.sub(pattern, replacement, text, count=1, flags=re.M)
    assert edited != text, pattern
    open(path, "w").write(edited)


def test_an_edited_tolerance_or_task_version_re_evaluates(relu_case):
    suite, subs, out = relu_case
    toml = os.path.join(suite, "relu", "task.toml")
    assert rerun(suite, subs, out, "--no-timing") == 0
    edit(toml, r"(\[tolerance\.float32\]\natol = )[0-9.eE+-]+", r"\g<1>1e-6")
    assert rerun(suite, subs, out, "--no-timing") == 0
    assert rerun(suite, subs, out, "--no-timing") == 1
    edit(toml, r"^version = 1$", "version = 2")
    assert rerun(suite, subs, out, "--no-timing") == 0
    assert evaluations(out) == 3


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def test_an_edited_adapter_reuses_a_native_result_and_edited_runner_code_does_not(relu_case, monkeypatch):
    """The evaluation key follows keval_runner's code and a peer task's own adapter; a native
    task names no adapter, so editing any adapter leaves its stored result in use."""
    suite, subs, out = relu_case
    runner = os.path.join(os.path.dirname(suite), "runner")  # beside the suite: readable by the jobs' uids
    for package in ("keval_runner", "keval_adapters"):
        shutil.copytree(REPO / "runner" / package, os.path.join(runner, package),
                        ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("KEVAL_RUNNER_DIR", runner)
    assert rerun(suite, subs, out, "--no-timing") == 0
    for adapter_file in ("kernelbench/adapter.py", "common/cli.py", "vendor/tomli_w.py"):
        append(os.path.join(runner, "keval_adapters", adapter_file), "# a help text edited\n")
    assert rerun(suite, subs, out, "--no-timing") == 1
    append(os.path.join(runner, "keval_runner", "compare", "compare.py"), "# the code that measures edited\n")
    assert rerun(suite, subs, out, "--no-timing") == 0
    assert evaluations(out) == 2
