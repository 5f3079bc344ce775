"""bench/aa_sides.py: each side of an A/A case from a run's keval.db, on a database written here."""
import json
import pathlib
import sqlite3
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def timing(who, samples, host, cover, fit=None):
    message = {"type": "timing", "case": "perf_1", "dtype": "float32", "who": who, "samples_ms": samples,
               "host_samples_ms": host, "launch_cover_ms": cover, "stop_reason": "converged"}
    if fit is not None:  # a run before the fit's probes were recorded has none
        message["cover_fit_enqueues_us"] = fit
    return message


def write_db(path: pathlib.Path) -> pathlib.Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE evaluations(id INTEGER PRIMARY KEY, task TEXT, facts_json TEXT)")
    argmax = {"timing": {"messages": [
        {"type": "device_alone"},
        timing("candidate", [0.020, 0.010, 0.010, 0.010, 0.010, 0.010], [0.021, 0.011, 0.011, 0.011, 0.011, 0.011], 0.2),
        timing("eager", [0.012] * 6, [0.052] * 6, 0.3, fit=[150.0, 2480.5, 160.25])]}}
    db.execute("INSERT INTO evaluations(task, facts_json) VALUES (?, ?)", ("argmax", json.dumps(argmax)))
    db.execute("INSERT INTO evaluations(task, facts_json) VALUES (?, ?)", ("abs", json.dumps({"timing": None})))
    db.commit()
    return path


def sides(*args):
    return subprocess.run([sys.executable, str(REPO / "bench" / "aa_sides.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def test_each_side_shows_its_warm_up_its_host_gap_and_its_cover(tmp_path):
    write_db(tmp_path / "keval.db")
    proc = sides(tmp_path, "--tasks", "argmax")
    assert proc.returncode == 0, proc.stderr
    candidate = next(line for line in proc.stdout.splitlines() if " candidate " in line).split()
    eager = next(line for line in proc.stdout.splitlines() if " eager " in line).split()
    # n, median, first third, last third, host gap, cover, the fit's slowest enqueue (us)
    assert candidate[4:11] == ["6", "10.00", "15.00", "10.00", "1.00", "200.00", "-"]
    assert eager[4:11] == ["6", "12.00", "12.00", "12.00", "40.00", "300.00", "2480.50"]
    assert "ratio      0.8333x" in proc.stdout


def test_no_match_and_no_database_are_one_line_errors(tmp_path):
    write_db(tmp_path / "keval.db")
    proc = sides(tmp_path / "keval.db", "--tasks", "abs")
    assert proc.returncode == 1 and "no timed case matched" in proc.stderr
    proc = sides(tmp_path / "absent")
    assert proc.returncode != 0 and "absent" in proc.stderr and "Traceback" not in proc.stderr
