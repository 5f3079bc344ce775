"""The differential check on real goldens and mutants (CPU interpreter, a few trials): a mutant
whose masked-off lanes are never used is proven equivalent with its evidence; one that reads
past its input is exposed by the interpreter's bounds check, though no output shows it."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO
from keval_mutate.mutants import make_mutants
from keval_mutate.operators import BY_NAME
from keval_mutate.trial_shapes import is_prime, plan


def mutant_file(tmp_path, task, operator, site):
    golden = REPO / "suites" / "keval" / task / "golden.py"
    made = make_mutants(task, golden.read_text(), str(golden), [BY_NAME[operator]])
    mutant = next(m for m in made if m.site == site)
    path = tmp_path / f"{task}.{operator}.{site}.py"
    path.write_text(mutant.code)
    return mutant.id, path


def differential(tmp_path, task, mutants, trials):
    args = [sys.executable, "-m", "keval_mutate", "differential", "--task-dir", str(REPO / "suites" / "keval" / task),
            "--out", str(tmp_path), "--trials", str(trials)]
    for mutant_id, path in mutants:
        args += ["--mutant", f"{mutant_id}={path}"]
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO / "runner")}
    proc = subprocess.run(args, cwd=REPO / "runner", env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {m: json.loads((tmp_path / (p.stem + ".json")).read_text()) for m, p in mutants}


def test_the_plan_holds_the_cases_their_neighbours_and_odd_prime_and_tiny_draws():
    templates = [{"name": "a", "rows": 37, "cols": 1001}, {"name": "b", "rows": 2, "cols": 40009, "outliers": False}]
    anchored, drawn = plan(templates, 60, seed=1)
    shapes = [(t["case"]["rows"], t["case"]["cols"]) for t in anchored]
    # each case, then its sizes +1 and -1 (3x40010 is over the budget: its rows shrink, not its width)
    assert shapes == [(37, 1001), (38, 1002), (36, 1000), (2, 40009), (1, 40010), (1, 40008)]
    cols = [t["case"]["cols"] for t in drawn]
    assert len(drawn) == 60
    assert any(is_prime(c) for c in cols) and any(c % 2 == 1 for c in cols) and any(c <= 3 for c in cols)
    assert any(c % 2 == 0 and c & (c - 1) for c in cols)  # even, not a power of two
    assert any(c > 32768 for c in cols)  # the wide case's own scale, not only small sizes
    assert all(t["case"]["rows"] * t["case"]["cols"] <= 80018 for t in anchored + drawn)


@pytest.mark.timeout(300)
def test_unused_fill_is_equivalent_and_an_unmasked_read_is_exposed(tmp_path):
    equivalent = mutant_file(tmp_path, "cumsum", "other_swapped", 1)
    reads_past = mutant_file(tmp_path, "relu", "mask_dropped", 1)
    found = differential(tmp_path, "cumsum", [equivalent], trials=6)[equivalent[0]]
    assert found["verdict"] == "equivalent", found
    assert found["compared"] >= 4 and found["dtypes"] == ["bfloat16", "float16", "float32"]
    assert found["exposed_by"] is None and len(found["trials"]) == found["compared"]
    exposed = differential(tmp_path, "relu", [reads_past], trials=3)[reads_past[0]]
    assert exposed["verdict"] == "survived"
    assert exposed["exposed_by"]["template"] == "odd_37x1001"
    assert exposed["exposed_by"]["what"].startswith("out of bounds: kernel _relu_kernel: load of")
    assert "past the end of x_ptr" in exposed["exposed_by"]["what"]
