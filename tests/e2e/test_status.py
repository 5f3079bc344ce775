"""keval validate --status: the STATUS.md row of a task, with speedups over eager and torch.compile."""
import json
import sqlite3

from conftest import run_keval


def test_status_row_has_eager_and_compile_speedups(tmp_path):
    status = tmp_path / "STATUS.md"
    run_keval("validate", "--suite", "suites/keval", "--tasks", "relu", "--device", "cpu",
              "--out", tmp_path / "v", "--status", status, timeout=900)
    rows = [line for line in status.read_text().splitlines() if line.startswith("| relu |")]
    assert len(rows) == 1, status.read_text()
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    # task, track, verdict, case, dtype, time, GB/s, TFLOP/s, efficiency, vs eager, vs compile, note
    assert cells[2] == "pass", rows[0]
    assert float(cells[5]) > 0, rows[0]
    for speedup in cells[9:11]:  # torch.compile ran (a failed compile baseline would leave "-")
        assert speedup.endswith("x") and float(speedup[:-1]) > 0, rows[0]
    # torch.compile was compiled in the reference job (sharing the device), not while timing
    db = sqlite3.connect(tmp_path / "v" / "keval.db")
    [(facts,)] = db.execute("SELECT facts_json FROM evaluations").fetchall()
    warm = [m for m in json.loads(facts)["reference"]["messages"] if m["type"] == "compile_warm_up"]
    assert warm and warm[0]["ok"] is True, warm


def test_validate_times_the_goldens_against_the_baselines_asked(tmp_path):
    """--baseline golden,eager: an A/A of each golden (the submission in the guest, the golden in
    the warden), eager PyTorch beside it in cases[].baseline_ms."""
    run_keval("validate", "--suite", "suites/keval", "--tasks", "vector_add", "--device", "cpu",
              "--out", tmp_path / "v", "--baseline", "golden,eager", timeout=900)
    [result] = [json.loads(line) for line in (tmp_path / "v" / "results.jsonl").read_text().splitlines()]
    assert result["verdict"] == "pass" and result["baseline"] == "golden"
    timed = [c for c in result["cases"] if c.get("ref_time_ms")]
    assert timed and all(set(c["baseline_ms"]) == {"eager"} for c in timed), timed
