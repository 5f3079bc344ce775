"""bench/stop_rule_replay.py: stopping rules replayed on a run's samples, in a database written here."""
import json
import pathlib
import sqlite3
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
SETTINGS = {"baselines": ["eager"], "timing": {
    "min_samples": 100, "max_samples": 100, "target_rel_stdev": 0.005, "spread_share": 0.15,
    "spread_bands": [[0.0, 0.07], [0.01, 0.05], [0.05, 0.0125], [0.5, 0.011]]}}


def steady(n, ms=0.1, step=0.0001):
    return [ms + step * ((k * 7) % 3 - 1) for k in range(n)]  # within 0.1%


def with_outliers(n, ms=0.1):
    return [ms * 1.3 if k % 5 == 4 else ms + 0.0001 * (k % 2) for k in range(n)]  # every 5th 30% slow


def write_db(path: pathlib.Path) -> pathlib.Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs(id INTEGER PRIMARY KEY, settings_json TEXT)")
    db.execute("CREATE TABLE evaluations(id INTEGER PRIMARY KEY, task TEXT, facts_json TEXT)")
    db.execute("INSERT INTO runs(settings_json) VALUES (?)", (json.dumps(SETTINGS),))
    cases = {"steady": (steady(40), steady(40)), "outliers": (with_outliers(40), with_outliers(40)),
             "slower": ([0.104] * 40, [0.1] * 40), "short": (with_outliers(5), with_outliers(5))}
    messages = []
    for case, (candidate, baseline) in cases.items():
        messages += [{"type": "timing", "case": case, "dtype": "float32", "who": "candidate", "samples_ms": candidate},
                     {"type": "timing", "case": case, "dtype": "float32", "who": "eager", "samples_ms": baseline},
                     {"type": "timing", "case": case, "dtype": "float32", "who": "golden", "samples_ms": [9.0] * 40}]
    db.execute("INSERT INTO evaluations(task, facts_json) VALUES (?, ?)",
               ("add", json.dumps({"timing": {"messages": [{"type": "device_alone"}] + messages}})))
    db.commit()
    return path


def test_each_rule_stops_each_case_where_its_estimate_allows_and_reads_its_ratio(tmp_path):
    sys.path.insert(0, str(REPO / "bench"))
    import stop_rule_replay

    db = write_db(tmp_path / "keval.db")
    settings, baseline = stop_rule_replay.run_settings(db)
    assert baseline == "eager" and settings["min_samples"] == 100
    settings = dict(settings, min_samples=10)
    outliers = with_outliers(40)
    for rule in stop_rule_replay.RULES.values():  # steady samples: every rule stops at min_samples
        assert stop_rule_replay.replay(steady(40), steady(40), rule, settings) == (10, 1.0, False)
    # a slow outlier every 5th sample: the stdev keeps the runner's rule going to the record's end;
    # the median's order statistics stop it once its interval is clear of them (11 samples)
    assert stop_rule_replay.replay(outliers, outliers, stop_rule_replay.RULES["runner"], settings) == (40, 1.0, True)
    assert stop_rule_replay.replay(outliers, outliers, stop_rule_replay.RULES["median-error"], settings) == (11, 1.0, False)

    results = stop_rule_replay.report([db], round_ms=5.0, min_samples=10)
    band = results["median-error"]["50-500 us"]
    assert (band["cases"], band["rounds"], band["at_end"]) == (4, 10 + 11 + 10 + 5, 1)  # "short" ran out
    assert band["worst"] == results["runner"]["50-500 us"]["worst"] == 0.104 / 0.1 - 1
    assert results["runner"]["overall"]["rounds"] == 10 + 40 + 10 + 5
    medians = [statistics.median(s) for s in (steady(40), with_outliers(40), [0.1] * 40, with_outliers(5))]
    expected = sum(r * (5.0 + 2 * ms) for r, ms in zip((10, 40, 10, 5), medians)) / 1e3
    assert abs(results["runner"]["overall"]["seconds"] - expected) < 1e-12
    assert results["runner"]["under 10 us"]["cases"] == 0
    # a larger share of the harness's spread (1.25% at 0.1 ms) lets the stdev rule stop the
    # outliers' case too: at 2.0 a median's error of 2.5% is allowed, which its 12% stdev
    # reaches before the record's 40 samples end
    looser = stop_rule_replay.report([db], round_ms=5.0, min_samples=10, spread_share=2.0)
    assert looser["runner"]["overall"]["rounds"] < results["runner"]["overall"]["rounds"]


def test_the_table_prints_every_rule_and_a_missing_run_is_one_line(tmp_path):
    write_db(tmp_path / "keval.db")
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "stop_rule_replay.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for rule in ("runner", "median-error", "mad"):
        assert f"\n{rule:<12} overall          4 " in proc.stdout
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "stop_rule_replay.py"), str(tmp_path / "absent")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.strip().endswith("/absent: no such database")
    assert "Traceback" not in proc.stderr


def test_a_record_of_fixed_samples_made_by_keval_replays(tmp_path):
    """--min-samples N --max-samples N: every timed case of an A/A run takes N samples a side,
    which the replay reads from the run's own keval.db."""
    import os

    fixture = REPO / "tests" / "adapters" / "kernelbench" / "fixtures" / "kernelbenchx"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = tmp_path / "aa"
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "aa_bias.py"), "--suite",
                           f"kernelbenchx:{fixture}:any-code", "--device", "cpu", "--out", str(out),
                           "--min-samples", "12", "--max-samples", "12", "--max-seconds", "10"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sys.path.insert(0, str(REPO / "bench"))
    import stop_rule_replay

    db = out / "keval.db"
    settings, baseline = stop_rule_replay.run_settings(db)
    assert (settings["min_samples"], settings["max_samples"]) == (12, 12)
    pairs = stop_rule_replay.paired_cases(db, baseline)
    assert pairs and all(len(candidate) == len(other) == 12 for candidate, other in pairs)
    replayed = subprocess.run([sys.executable, str(REPO / "bench" / "stop_rule_replay.py"), str(out)],
                              capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0 and f"runner       overall      {len(pairs):>5} " in replayed.stdout, replayed.stdout
