"""The sweep's variants: only tuning literals change, every variant still parses."""
import ast
import difflib
import json

from conftest import REPO
from keval_dataset.variants import find_knobs, sweep_submissions, variants


def test_softmax_golden_has_warps_and_block_knobs_and_thresholds_are_left_alone():
    source = (REPO / "suites/keval/softmax/golden.py").read_text()
    names = {k.name for k in find_knobs(source)}
    assert {"warps", "BLOCK", "num_warps"} <= names
    for label, code in variants(source, 30, seed=1):
        ast.parse(code)
        changed = [line for line in difflib.ndiff(source.splitlines(), code.splitlines()) if line.startswith("+ ")]
        assert all("BLOCK <= 1024" in line or "num_warps" in line or "warps" in line or "BLOCK=" in line
                   for line in changed), changed
        assert "_MAX_FUSED = 32768" in code  # not a tuning name: never rewritten


def test_variants_are_distinct_and_start_with_the_program_as_is():
    source = (REPO / "suites/keval/matmul/golden.py").read_text()
    found = variants(source, 24, seed=3)
    assert found[0] == ("as_is", source)
    assert len({code for _, code in found}) == len(found) > 5


def test_sweep_writes_submissions_for_goldens_and_given_programs(tmp_path):
    given = tmp_path / "given.jsonl"
    given.write_text(json.dumps({"task": "relu", "code": "def relu(x, BLOCK=256):\n    return x\n", "id": "mine"}) + "\n")
    out = tmp_path / "v.jsonl"
    summary = sweep_submissions(str(REPO / "suites/keval"), str(out), 4, 17, tasks="relu,softmax", submissions=str(given))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary["programs"] == 3 and summary["variants"] == len(lines)
    assert {line["task"] for line in lines} == {"relu", "softmax"}
    assert any(line["id"].startswith("mine#") for line in lines)


def test_a_smaller_sweep_with_the_same_seed_takes_the_first_variants_of_a_larger_one():
    """So `--variants 12` re-times the same programs as an earlier `--variants 24` (noise ceiling)."""
    source = (REPO / "suites/keval/matmul/golden.py").read_text()
    assert variants(source, 24, seed=17)[:12] == variants(source, 12, seed=17)
