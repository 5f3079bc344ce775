"""keval dataset export from a keval.db made by a real CPU run."""
import json
import sqlite3

import pyarrow.parquet as pq

from conftest import run_keval


def test_export_has_makoras_columns_and_null_latency_for_failures(cpu_run, tmp_path):
    out = tmp_path / "export"
    run_keval("dataset", "export", "--from", cpu_run, "--out", out)
    train, test = pq.read_table(out / "train.parquet"), pq.read_table(out / "test.parquet")
    assert train.column_names[:2] == ["x", "y"]
    assert test.column_names[:4] == ["x", "y", "problem_id", "holdout_group"]
    rows = train.to_pylist() + test.to_pylist()
    assert rows, "a timed CPU run gives records"
    wrong = [r for r in rows if r["submission_id"] == "relu-wrong"]
    golden = [r for r in rows if r["submission_id"] == "relu-golden"]
    assert wrong and all(r["y"] is None and r["verdict"] == "mismatch" for r in wrong)
    assert golden and all(r["y"] > 0 and r["verdict"] == "pass" for r in golden)
    for r in golden:
        assert r["timer_method"] == "wall_clock" and r["sample_count"] >= 2
        assert r["ci95_low_ms"] <= r["median_ms"] <= r["ci95_high_ms"]
        assert r["y"] == r["median_ms"]
        assert json.loads(r["shapes"]), "the case's shape symbols are recorded"
        assert r["suite"] == "keval" and r["suite_version"].startswith("v")
        assert r["dtype"] and r["case"] and r["x"].startswith("# keval problem: keval/relu/")
        assert r["baseline"] == "golden" and r["baseline_ms"] > 0
        assert r["device_mode"] == "cpu_interpreter" and r["torch"]
    # the wrong relu is timed on the same cases as the golden: one null record per case
    assert {(r["case"], r["dtype"]) for r in wrong} == {(r["case"], r["dtype"]) for r in golden}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["train_rows"] + manifest["test_rows"] == len(rows)


def test_export_never_overwrites_without_force(cpu_run, tmp_path):
    out = tmp_path / "export"
    run_keval("dataset", "export", "--from", cpu_run, "--out", out, "--format", "jsonl")
    again = run_keval("dataset", "export", "--from", cpu_run, "--out", out, "--format", "jsonl", check=False)
    assert again.returncode != 0
    assert "train.jsonl: exists" in again.stderr and len(again.stderr.strip().splitlines()) == 1
    run_keval("dataset", "export", "--from", cpu_run, "--out", out, "--force")
    assert (out / "train.parquet").exists() and not (out / "train.jsonl").exists()


def test_export_of_a_folder_without_store_names_the_file(tmp_path):
    proc = run_keval("dataset", "export", "--from", tmp_path, "--out", tmp_path / "x", check=False)
    assert proc.returncode != 0 and f"{tmp_path}/keval.db: no such file" in proc.stderr


V1_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT, keval_version TEXT,
  suite TEXT, submissions TEXT, device TEXT, settings_json TEXT, environment_json TEXT, summary_json TEXT);
CREATE TABLE submissions(hash TEXT PRIMARY KEY, task TEXT NOT NULL, code TEXT NOT NULL, first_seen TEXT NOT NULL);
CREATE TABLE evaluations(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  eval_key TEXT NOT NULL UNIQUE, submission_hash TEXT REFERENCES submissions(hash), submission_id TEXT,
  origin TEXT, task TEXT, task_version INTEGER, verdict TEXT NOT NULL, reasons_json TEXT, facts_json TEXT,
  result_json TEXT NOT NULL, speedup REAL, time_ms REAL, created_at TEXT NOT NULL);
CREATE TABLE case_results(evaluation_id INTEGER NOT NULL REFERENCES evaluations(id), case_name TEXT, dtype TEXT,
  time_ms REAL, ref_time_ms REAL, speedup REAL, max_abs_err REAL, max_rel_err REAL);
CREATE TABLE samples(evaluation_id INTEGER REFERENCES evaluations(id), run_id INTEGER, task TEXT,
  case_name TEXT, dtype TEXT, who TEXT NOT NULL, method TEXT, samples_json TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version', '1');
"""


def make_v1_store(path):
    db = sqlite3.connect(path)
    db.executescript(V1_SCHEMA)
    timing = {"messages": [{"type": "timing", "case": "big", "dtype": "float32", "who": "candidate",
                            "method": "cuda_event_cold_l2", "samples_ms": [1.0, 1.1, 0.9]}]}
    db.execute("INSERT INTO runs VALUES(1, 't0', 't1', '0.1.0', 'suites/keval', 's.jsonl', 'cuda', ?, ?, NULL)",
               (json.dumps({"timing": {"enabled": True}}), json.dumps({"gpu": "NVIDIA H200", "driver": "570"})))
    for i, verdict in ((1, "pass"), (2, "compile_error")):
        db.execute("INSERT INTO submissions VALUES(?, 'relu', ?, 't0')", (f"h{i}", f"def relu(x): {i}"))
        facts = json.dumps({"candidate": {}, "timing": timing if verdict == "pass" else None})
        db.execute("INSERT INTO evaluations(id, run_id, eval_key, submission_hash, submission_id, task, task_version,"
                   " verdict, reasons_json, facts_json, result_json, created_at) VALUES(?,1,?,?,?,'relu',1,?,'[]',?,?,'t0')",
                   (i, f"k{i}", f"h{i}", f"s{i}", verdict, facts, json.dumps({"baseline": "golden", "cases": []})))
    db.commit()
    db.close()


def test_a_version_1_store_is_exported_and_migrated_without_loss(tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    make_v1_store(out / "keval.db")
    run_keval("dataset", "export", "--from", out, "--out", tmp_path / "e", "--format", "jsonl")
    rows = [json.loads(line) for f in ("train", "test") for line in (tmp_path / "e" / f"{f}.jsonl").read_text().splitlines()]
    by_id = {r["submission_id"]: r for r in rows}
    assert by_id["s1"]["y"] == 1.0 and by_id["s1"]["gpu"] == "NVIDIA H200" and by_id["s1"]["shapes"] is None
    assert by_id["s2"]["y"] is None and by_id["s2"]["case"] is None
    # exporting never migrates; a run on the folder does, and keeps every stored row
    assert sqlite3.connect(out / "keval.db").execute("SELECT value FROM meta").fetchone()[0] == "1"
    empty = tmp_path / "empty.jsonl"  # one line with no code: judged without running anything
    empty.write_text(json.dumps({"task": "relu", "code": "", "id": "empty"}) + "\n")
    run_keval("run", "--suite", "suites/keval", "--submissions", empty, "--out", out, "--device", "cpu", "--quiet")
    db = sqlite3.connect(out / "keval.db")
    assert db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == "3"
    assert db.execute("SELECT policy_json FROM evaluations WHERE eval_key='k1'").fetchone()[0] is None
    assert db.execute("SELECT count(*) FROM evaluations").fetchone()[0] >= 2
    assert db.execute("SELECT verdict FROM evaluations WHERE eval_key='k1'").fetchone()[0] == "pass"
