"""A mutant that loops forever is killed at its task's own timeout, derived from the golden's
job time on this machine (max(30 s, 20 x the golden's longest job)), not at the device's
default job timeout (600 s on the CPU), and its verdict is `timeout`."""
import json
import subprocess

import pytest

from conftest import FIXTURE_SUITE, KEVAL, REPO, keval_env


@pytest.mark.timeout(500)
def test_a_mutant_that_loops_forever_is_killed_at_its_tasks_timeout(tmp_path):
    out = tmp_path / "out"
    # chunk_copy walks the vector until it has copied n elements: its mask dead on odd sizes,
    # no element is ever copied and the walk never ends
    proc = subprocess.run([KEVAL, "mutate", "--suite", str(FIXTURE_SUITE), "--tasks", "chunk_copy", "--operators",
                           "mask_dead_on_odd_sizes", "--device", "cpu", "--jobs", "1", "--equivalence-trials", "0",
                           "--out", str(out)], cwd=REPO, env=keval_env(), capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "keval: mutant timeout per job (20 x the golden's longest job, at least 30 s; --mutant-timeout to set): " \
           "chunk_copy 30 s" in proc.stderr, proc.stderr
    report = json.loads((out / "mutants.json").read_text())
    assert [(k["id"], k["verdict"]) for k in report["tasks"]["chunk_copy"]["killed_by"]] == \
        [("mutant:chunk_copy:mask_dead_on_odd_sizes:1", "timeout")]
    results = {r["id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    hung = results["mutant:chunk_copy:mask_dead_on_odd_sizes:1"]
    assert "killed at its deadline after 3" in hung["reasons"][0]
    assert 30 <= hung["job_seconds"]["candidate"]["wall_s"] < 60  # not the 600 s of the device's default
    assert results["golden:chunk_copy"]["verdict"] == "pass"
