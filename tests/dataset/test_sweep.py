"""keval sweep end to end on the CPU: variants of a golden become judged, timed records."""
import json

from conftest import run_keval


def test_sweep_times_variants_and_each_is_a_record(tmp_path):
    out = tmp_path / "sweep"
    run_keval("sweep", "--suite", "suites/keval", "--tasks", "vector_add", "--variants", "3", "--device", "cpu",
              "--out", out)
    variants = [json.loads(line) for line in (out / "variants.jsonl").read_text().splitlines()]
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(variants) == 3 and variants[0]["id"] == "vector_add@golden#as_is"
    assert [r["id"] for r in results] == [v["id"] for v in variants]
    assert results[0]["verdict"] == "pass"
    export = tmp_path / "export"
    run_keval("dataset", "export", "--from", out, "--out", export, "--format", "jsonl")
    rows = [json.loads(line) for f in ("train", "test") for line in (export / f"{f}.jsonl").read_text().splitlines()]
    assert {r["submission_id"] for r in rows} == {v["id"] for v in variants}
    assert all(r["quick_correctness"] for r in rows)
    assert all((r["y"] is None) == (r["verdict"] != "pass") for r in rows)


def test_sweep_jobs_judge_each_variant_and_survive_a_killed_one(tmp_path):
    """Golden variants share sweep jobs; each still gets its own verdict, and a variant that kills
    its job leaves the variants after it to a new job (fixtures/knob_suite/double/golden.py)."""
    out = tmp_path / "sweep"
    run_keval("sweep", "--suite", "tests/dataset/fixtures/knob_suite", "--variants", "5", "--device", "cpu",
              "--out", out)
    verdicts = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        result = json.loads(line)
        verdicts[result["id"].split("=")[-1] if "=" in result["id"] else "as_is"] = result["verdict"]
    assert verdicts == {"as_is": "pass", "512": "pass", "64": "mismatch", "1024": "runtime_error", "128": "crash"}
    export = tmp_path / "export"
    run_keval("dataset", "export", "--from", out, "--out", export, "--format", "jsonl")
    rows = [json.loads(line) for f in ("train", "test") for line in (export / f"{f}.jsonl").read_text().splitlines()]
    assert len(rows) == 5
    assert sorted(r["y"] is None for r in rows) == [False, False, True, True, True]
    assert all(r["timer_method"] == "wall_clock" and r["sample_count"] > 0 for r in rows if r["y"] is not None)
