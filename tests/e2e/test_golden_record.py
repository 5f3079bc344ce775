"""Golden timings recorded once and reused; a record from another environment is refused."""
import json

from conftest import REPO, read_results, run_keval


def test_recorded_goldens_are_reused_and_a_mismatch_is_refused(tmp_path):
    record = tmp_path / "goldens.json"
    run_keval("golden", "record", "--suite", "suites/keval", "--tasks", "relu", "--device", "cpu",
              "--file", record, "--out", tmp_path / "rec")
    data = json.loads(record.read_text())
    cases = data["tasks"]["relu"]["cases"]
    assert cases and all(c["median_ms"] > 0 for c in cases.values())

    sub = tmp_path / "relu.py"
    sub.write_text((REPO / "suites" / "keval" / "relu" / "golden.py").read_text())
    run_keval("run", "--suite", "suites/keval", "--submissions", sub, "--out", tmp_path / "o",
              "--device", "cpu", "--golden-from", record)
    [result] = read_results(tmp_path / "o")
    assert result["verdict"] == "pass" and result["baseline"] == "golden", result
    assert result["speedup"] > 0
    timed = [c for c in result["cases"] if c["speedup"]]
    assert timed and all(c["ref_time_ms"] == cases[f"{c['case']}/{c['dtype']}"]["median_ms"] for c in timed)
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["environment"]["golden_record"] == record.name  # not the folder of this machine

    data["key"]["driver"] = "999.0"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data))
    proc = run_keval("run", "--suite", "suites/keval", "--submissions", sub, "--out", tmp_path / "o2",
                     "--device", "cpu", "--golden-from", other, check=False)
    assert proc.returncode != 0
    assert "999.0" in proc.stderr and "keval golden record" in proc.stderr
