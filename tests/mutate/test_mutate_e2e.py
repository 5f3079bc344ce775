"""keval mutate with the real binary on the CPU (Triton's interpreter): mutants judged as
submissions, mutants.json and mutants.md written, a second run resumed from keval.db.

relu has no survivor left on the CPU (its out-of-bounds mutants meet the judge's bounds check);
the differential check's reports of survivors are pinned in test_differential.py."""
import json
import os
import subprocess

import pytest

from conftest import REPO

KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))


def mutate(out, *args):
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)  # keval decides the mode itself
    proc = subprocess.run([KEVAL, "mutate", "--suite", "suites/keval", "--out", str(out), "--device", "cpu", *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=500)
    assert proc.returncode == 0, f"keval mutate exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc, json.loads((out / "mutants.json").read_text())


@pytest.fixture(scope="module")
def relu(tmp_path_factory):
    out = tmp_path_factory.mktemp("relu")
    proc, report = mutate(out, "--tasks", "relu")
    return out, proc, report


def test_every_relu_mutant_is_judged_against_a_passing_golden(relu):
    out, _, report = relu
    task = report["tasks"]["relu"]
    assert task["golden_verdict"] == "pass"
    assert task["made"] == task["killed"] + task["survived"] + task["invalid"] >= 8
    assert task["unjudged"] == 0 and report["device_mode"] == "cpu_interpreter"
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == task["made"] + 1  # the mutants and the golden, as submissions
    assert all(k["verdict"] != "pass" for k in task["killed_by"])


def test_relu_kills_off_by_one_addresses_and_lowered_precision(relu):
    killed = {k["operator"] for k in relu[2]["tasks"]["relu"]["killed_by"]}
    assert {"offset_plus_one", "arange_shifted", "program_id_swapped", "accumulator_lowered",
            "mask_dead_on_odd_sizes"} <= killed


def test_relu_out_of_bounds_mutants_are_killed_by_the_cpu_bounds_check(relu):
    """An unmasked load reads past the input, and `offs <= n` writes one element past an output
    the kernel allocated itself: no case shows either, the judge's CPU bounds check does."""
    out, proc, report = relu
    killed = {k["id"]: k for k in report["tasks"]["relu"]["killed_by"]}
    for mutant in ("mutant:relu:mask_dropped:1", "mutant:relu:mask_weakened:1"):
        assert killed[mutant]["verdict"] == "out_of_bounds", killed[mutant]
        assert "out of bounds" in killed[mutant]["reason"] and "_relu_kernel" in killed[mutant]["reason"]
    assert report["tasks"]["relu"]["survived"] == 0 and report["tasks"]["relu"]["survivors"] == []
    assert report["tasks"]["relu"]["kill_rate"] == 1.0
    assert "| relu |" in (out / "mutants.md").read_text()


def test_a_second_run_reuses_every_stored_result(relu):
    out, _, report = relu
    proc, again = mutate(out, "--tasks", "relu")
    assert f"reused {report['tasks']['relu']['made'] + 1} stored result(s)" in proc.stdout
    assert again["suite"] == report["suite"]


def test_softmax_kills_the_max_shift_skipped_on_odd_widths(tmp_path):
    """Issue 41's softmax: the max shift skipped on odd widths passed while the only outlier case
    was 64x256; outliers_odd_7x257 kills it, as outliers_64x256 kills removing it always."""
    _, report = mutate(tmp_path, "--tasks", "softmax", "--operators",
                       "max_subtraction_removed,max_subtraction_skipped_on_odd_sizes")
    task = report["tasks"]["softmax"]
    assert report["operators"]["max_subtraction_removed"]["survived"] == 0
    assert report["operators"]["max_subtraction_skipped_on_odd_sizes"]["made"] >= 1
    assert report["operators"]["max_subtraction_skipped_on_odd_sizes"]["survived"] == 0
    assert not task["survivors"]
