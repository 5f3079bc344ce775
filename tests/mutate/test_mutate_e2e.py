"""keval mutate with the real binary on the CPU (Triton's interpreter): mutants judged as
submissions, mutants.json and mutants.md written, a second run resumed from keval.db.

The survivors pinned here are holes the tasks have today (docs/mutation.md): when a case kills
one, move it to the killed side of these tests. The differential check runs on them too (a
survivor exposed at its first trial costs one interpreter call)."""
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


def test_relu_survivors_are_reported_with_their_diffs(relu):
    out, proc, report = relu
    survivors = {s["id"]: s for s in report["tasks"]["relu"]["survivors"]}
    # An unmasked load reads past the input (nothing checks reads on the CPU), and `offs <= n`
    # writes one element past an output the kernel allocated itself (no guard band there).
    assert {"mutant:relu:mask_dropped:1", "mutant:relu:mask_weakened:1"} <= set(survivors)
    assert "-    mask = offs < n\n+    mask = offs <= n\n" in survivors["mutant:relu:mask_weakened:1"]["diff"]
    assert "survived: mutant:relu:mask_weakened:1" in proc.stdout
    # the differential check exposes both with the interpreter's bounds check, not as equivalent
    for survivor in survivors.values():
        assert "out of bounds" in survivor["equivalence"] and survivor["exposed_by"]["dtype"]
        assert (out / survivor["evidence_file"]).is_file()
    assert report["tasks"]["relu"]["equivalent"] == 0
    text = (out / "mutants.md").read_text()
    assert "## Survivors" in text and "exposed by rows=37, cols=1001 float32" in text
    assert "```diff" in text and "| relu |" in text


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
