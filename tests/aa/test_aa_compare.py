"""bench/aa_compare.py: run-to-run noise told from a bias that stays, on results written here."""
import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def write_run(path: pathlib.Path, ratios: dict) -> pathlib.Path:
    """An A/A results.jsonl: one passing submission per task, a case per (case, ratio)."""
    rows = [{"task": task, "verdict": "pass",
             "cases": [{"case": case, "time_ms": 0.02 * ratio, "ref_time_ms": 0.02, "samples": 12}
                       for case, ratio in cases.items()]}
            for task, cases in ratios.items()]
    rows.append({"task": "broken", "verdict": "mismatch", "cases": [{"case": "c", "time_ms": 9.0, "ref_time_ms": 1.0}]})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def compare(*args):
    return subprocess.run([sys.executable, str(REPO / "bench" / "aa_compare.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def test_a_case_off_the_same_way_in_every_run_is_named_and_noise_is_not(tmp_path):
    first = write_run(tmp_path / "a.jsonl", {"argmax": {"p1": 0.88, "p2": 1.01, "p3": 0.99},
                                             "add": {"p1": 1.04, "p2": 0.97}})
    (tmp_path / "b").mkdir()
    second = write_run(tmp_path / "b" / "results.jsonl", {"argmax": {"p1": 0.90, "p2": 0.99, "p3": 1.02},
                                                          "add": {"p1": 0.95, "p2": 1.00}})
    proc = compare(f"new={first},{tmp_path / 'b'}", "--off", "0.03")
    assert proc.returncode == 0, proc.stderr
    assert "off by more than 3% the same way in every run: 1 cases" in proc.stdout
    assert "argmax p1: 0.8800x 0.9000x" in proc.stdout
    assert "add p1" not in proc.stdout.split("every run")[1]  # off both ways: noise
    assert "broken" not in proc.stdout
    assert "runs 1 and 2: 5 shared cases, correlation" in proc.stdout


def test_correlation_is_high_for_a_bias_that_stays_and_none_without_spread():
    sys.path.insert(0, str(REPO / "bench"))
    import aa_compare

    assert aa_compare.correlation([0.1, -0.1, 0.05], [0.09, -0.12, 0.06]) > 0.9
    assert aa_compare.correlation([0.0, 0.0, 0.0], [0.1, 0.2, 0.3]) is None


def test_a_missing_run_and_a_bad_group_get_one_line_errors(tmp_path):
    proc = compare(f"new={tmp_path / 'absent.jsonl'}")
    assert proc.returncode != 0 and "absent.jsonl" in proc.stderr and "Traceback" not in proc.stderr
    proc = compare("new")
    assert proc.returncode != 0 and "expected NAME=RUN" in proc.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    proc = compare(f"x={bad}")
    assert proc.returncode != 0 and "bad.jsonl:1: not a JSON line" in proc.stderr
