"""Reasons name the run's own folders relative to it: a submission whose error holds its own
file's path (its job folder under OUT/work) reads `work/...`, never the machine's path."""
import json

from conftest import read_results, run_keval

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
