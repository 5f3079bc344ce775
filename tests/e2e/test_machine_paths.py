"""Reasons name the run's own folders relative to it: a submission whose error holds its own
file's path (its job folder under OUT/work) reads `work/...`, never the machine's path."""
import json
import os
import re
import sqlite3
import stat
import sys

from conftest import REPO, read_results, run_keval

RAISES_WITH_ITS_PATH = "def relu(x):\n    raise RuntimeError('failed in ' + __file__)\n"
FAILS_TO_LOAD_WITH_ITS_PATH = "raise ImportError('cannot load ' + __file__)\n"


def test_reasons_hold_no_path_of_the_machine(tmp_path):
    subs = tmp_path / "subs.jsonl"
    subs.write_text("".join(json.dumps(line) + "\n" for line in [
        {"task": "relu", "code": RAISES_WITH_ITS_PATH, "id": "raises"},
        {"task": "relu", "code": FAILS_TO_LOAD_WITH_ITS_PATH, "id": "fails_to_load"}]))
    out = tmp_path / "run"
    run_keval("run", "--suite", "suites/keval", "--tasks", "relu", "--submissions", subs, "--out", out,
              "--device", "cpu", "--no-timing", "--quiet")
    results = {r["id"]: r for r in read_results(out)}
    for id_, says in (("raises", "failed in work/"), ("fails_to_load", "cannot load work/")):
        reasons = " ".join(results[id_]["reasons"])
        assert says in reasons and str(tmp_path) not in reasons, reasons


def test_rejudged_reasons_hold_no_path_of_the_machine(tmp_path):
    """keval rejudge rebuilds reasons from the stored facts: they read as the run's did."""
    subs = tmp_path / "subs.jsonl"
    subs.write_text(json.dumps({"task": "relu", "code": RAISES_WITH_ITS_PATH, "id": "raises"}) + "\n")
    out = tmp_path / "run"
    run_keval("run", "--suite", "suites/keval", "--tasks", "relu", "--submissions", subs, "--out", out,
              "--device", "cpu", "--no-timing", "--quiet")
    run_keval("rejudge", out, "--into", tmp_path / "again", "--quiet")
    fresh, = read_results(out)
    again, = read_results(tmp_path / "again")
    assert again["reasons"] == fresh["reasons"], (again["reasons"], fresh["reasons"])
    assert "failed in work/" in " ".join(again["reasons"])
    summary = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert summary["rejudge"]["from"] == "../run", summary["rejudge"]


def test_what_a_run_stores_holds_no_folder_of_the_machine(tmp_path):
    """results.jsonl, summary.json (its sandbox warnings too) and the run record name neither OUT,
    nor the job folders, nor the home folder. As root, pytest's tmp_path lies below a 0700 folder:
    the jobs' folders move to /var/tmp/keval-work/<pid>-<n>, and a warning says so."""
    subs = tmp_path / "subs.jsonl"
    subs.write_text(json.dumps({"task": "relu", "code": RAISES_WITH_ITS_PATH, "id": "raises"}) + "\n")
    out = tmp_path / "run"
    # given relative, as `origin` keeps the submissions path as it was given
    run_keval("run", "--suite", "suites/keval", "--tasks", "relu", "--submissions", os.path.relpath(subs, REPO),
              "--out", out, "--device", "cpu", "--no-timing", "--quiet")
    summary = json.loads((out / "summary.json").read_text())
    with sqlite3.connect(out / "keval.db") as db:
        recorded, = db.execute("SELECT environment_json FROM runs").fetchone()
    stored = {"results.jsonl": (out / "results.jsonl").read_text(), "summary.json": json.dumps(summary),
              "the run record's environment": recorded}
    python = os.environ.get("KEVAL_PYTHON") or sys.executable
    machine_folders = re.compile("|".join([re.escape(str(out)), re.escape(os.path.realpath(out)),
                                           re.escape(os.path.expanduser("~")) + "(?![\\w.-])",
                                           re.escape(os.path.dirname(python)) + "/",
                                           r"/var/tmp/keval-work/\d"]))
    for name, text in stored.items():
        assert not machine_folders.search(text), (name, machine_folders.search(text).group(0), text)
    assert "failed in work/" in " ".join(read_results(out)[0]["reasons"])
    assert summary["environment"]["python_executable"] == os.path.basename(python), summary["environment"]
    closed_to_others = any(not folder.stat().st_mode & stat.S_IXOTH for folder in out.parents)
    if summary["environment"]["sandbox"]["uid"] and closed_to_others:  # the jobs ran elsewhere: said
        assert any("/var/tmp/keval-work" in w for w in summary["environment"]["sandbox"]["warnings"]), summary
