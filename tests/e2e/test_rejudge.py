"""keval rejudge: a finished run's stored facts judged again with every tolerance scaled, with no
GPU and no runner; the run's own folder stays as it was, and scale 1 gives its verdicts back."""
import hashlib
import json
import shutil
import sqlite3

import pytest

from conftest import REPO, read_results, run_keval

GOLDEN = (REPO / "suites" / "keval" / "vector_add" / "golden.py").read_text()
# 2e-5 off where |x + y| < 0.01: twice float32's allowance (1e-5 + 1e-5 x |expected|) there,
# inside float16's. Off there only: an offset on every element made the mean relative error of a
# small held-out case (n from 1) reach the precision policy's, which no tolerance scale lifts.
SLIGHTLY_OFF = GOLDEN.replace("(x + y).to(", "(x + y + tl.where(tl.abs(x + y) < 0.01, 2e-5, 0.0)).to(")


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    assert SLIGHTLY_OFF != GOLDEN
    root = tmp_path_factory.mktemp("rejudge")
    subs = root / "subs.jsonl"
    subs.write_text("".join(json.dumps(line) + "\n" for line in [
        {"task": "vector_add", "code": GOLDEN, "id": "exact"},
        {"task": "vector_add", "code": SLIGHTLY_OFF, "id": "slightly_off"}]))
    out = root / "run"
    run_keval("run", "--suite", "suites/keval", "--tasks", "vector_add", "--submissions", subs,
              "--out", out, "--device", "cpu")
    verdicts = {r["id"]: r["verdict"] for r in read_results(out)}
    assert verdicts == {"exact": "pass", "slightly_off": "mismatch"}
    return out


def test_a_large_scale_passes_the_slightly_off_submission_and_leaves_the_run_as_it_was(finished_run):
    out = finished_run
    before = {name: digest(out / name) for name in ("results.jsonl", "summary.json", "keval.db")}
    proc = run_keval("rejudge", out, "--tolerance-scale", "1000")
    rejudged = {r["id"]: r for r in read_results(out / "rejudged-x1000")}
    assert {i: r["verdict"] for i, r in rejudged.items()} == {"exact": "pass", "slightly_off": "pass"}, \
        {i: r["reasons"] for i, r in rejudged.items()}
    assert rejudged["slightly_off"]["exec"] and rejudged["slightly_off"]["speedup"] is None  # never timed
    assert rejudged["exact"]["speedup"] is not None
    summary = json.loads((out / "rejudged-x1000" / "summary.json").read_text())
    assert summary["exec_accuracy"] == 1.0
    assert summary["rejudge"]["changes"] == {"mismatch -> pass": 1} and summary["rejudge"]["tolerance_scale"] == 1000
    assert "1 verdict(s) changed (mismatch -> pass: 1)" in proc.stdout
    assert "never timed" in proc.stdout
    assert {name: digest(out / name) for name in before} == before


def test_a_scale_below_the_error_keeps_the_mismatch_and_says_by_how_much(finished_run, tmp_path):
    run_keval("rejudge", finished_run, "--tolerance-scale", "1.5", "--into", tmp_path / "x1.5")
    off = next(r for r in read_results(tmp_path / "x1.5") if r["id"] == "slightly_off")
    assert off["verdict"] == "mismatch"
    assert "values outside 1.5 x the task tolerance: the largest |diff| is" in off["reasons"][0], off["reasons"]


def test_scale_one_reproduces_the_runs_verdicts_and_reasons(finished_run, tmp_path):
    run_keval("rejudge", finished_run, "--into", tmp_path / "again")
    original = read_results(finished_run)
    again = read_results(tmp_path / "again")
    assert [(r["id"], r["verdict"], r["reasons"], r["speedup"]) for r in again] == \
           [(r["id"], r["verdict"], r["reasons"], r["speedup"]) for r in original]
    assert json.loads((tmp_path / "again" / "summary.json").read_text())["rejudge"]["changed"] == 0


@pytest.mark.parametrize("args, named", [
    (["{tmp}/nowhere"], "nowhere: no such folder"),
    (["{tmp}"], "keval.db: no such file"),
    (["{run}", "--tolerance-scale", "0"], "--tolerance-scale 0"),
    (["{run}", "--tolerance-scale=-2"], "--tolerance-scale -2"),
    (["{run}", "--tolerance-scale", "abc"], "--tolerance-scale abc"),
    (["{run}", "--into", "{run}"], "the run's own folder"),
])
def test_bad_input_is_one_line_naming_it_and_exit_2(finished_run, tmp_path, args, named):
    proc = run_keval("rejudge", *[a.format(tmp=tmp_path, run=finished_run) for a in args], check=False)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def stored_as_before(run, into, *, policy: bool, statistics: bool):
    """A copy of the run whose store lacks what an earlier keval did not keep: the judge policy
    (then nothing can be judged again) or the per-output statistics (then the counts decide)."""
    shutil.copytree(run, into, ignore=shutil.ignore_patterns(".keval.lock", "rejudged-*"))
    db = sqlite3.connect(into / "keval.db")
    for key, facts_json in db.execute("SELECT eval_key, facts_json FROM evaluations").fetchall():
        facts = json.loads(facts_json)
        for message in facts["reference"]["messages"]:
            for output in message.get("outputs", []) if not statistics else []:
                for name in ("max_tol_ratio", "nan_disagree", "inf_disagree"):
                    output.pop(name, None)
        db.execute("UPDATE evaluations SET facts_json = ? WHERE eval_key = ?", (json.dumps(facts), key))
    if not policy:
        db.execute("UPDATE evaluations SET policy_json = NULL")
    db.commit()
    db.close()
    return into


def test_facts_without_statistics_are_judged_at_the_tasks_own_tolerance(finished_run, tmp_path):
    old = stored_as_before(finished_run, tmp_path / "old", policy=True, statistics=False)
    proc = run_keval("rejudge", old, "--tolerance-scale", "1000")
    assert [r["verdict"] for r in read_results(old / "rejudged-x1000")] == ["pass", "mismatch"]
    assert "2 result(s) were stored without per-output error statistics" in proc.stdout


def test_results_stored_without_a_policy_are_kept_as_they_were(finished_run, tmp_path):
    old = stored_as_before(finished_run, tmp_path / "old", policy=False, statistics=True)
    proc = run_keval("rejudge", old, "--tolerance-scale", "1000")
    assert read_results(old / "rejudged-x1000") == read_results(old)
    assert "2 result(s) kept as stored" in proc.stdout
