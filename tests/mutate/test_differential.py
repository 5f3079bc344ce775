"""The differential check on real goldens and mutants (CPU interpreter, a few trials): a mutant
whose masked-off lanes are never used is proven equivalent with its evidence; one that reads
past its input is exposed by the interpreter's bounds check, though no output shows it; and the
two kinds of survivor the fifth run's check called equivalent (bench/runs/2026-12-05-mutation-
cpu-5.md) are exposed: a float16 conversion only bfloat16 values past 65504 in a wide row show,
and a chunk loop that skips column 0."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO
from keval_mutate.mutants import make_mutants
from keval_mutate.operators import BY_NAME
from keval_mutate.differential import read_task, trials_of
from keval_mutate.trial_shapes import is_prime, plan
from keval_mutate.trial_values import REGIMES, bend

SUITE = REPO / "suites" / "keval"
ROW_MIN = REPO / "tests" / "mutate" / "fixtures" / "suite" / "row_min"  # a fused and a looped kernel


def mutant_file(tmp_path, task, operator, site):
    golden = REPO / "suites" / "keval" / task / "golden.py"
    made = make_mutants(task, golden.read_text(), str(golden), [BY_NAME[operator]])
    mutant = next(m for m in made if m.site == site)
    path = tmp_path / f"{task}.{operator}.{site}.py"
    path.write_text(mutant.code)
    return mutant.id, path


def differential(tmp_path, task_dir, mutants, trials):
    args = [sys.executable, "-m", "keval_mutate", "differential", "--task-dir", str(task_dir),
            "--out", str(tmp_path), "--trials", str(trials)]
    for mutant_id, path in mutants:
        args += ["--mutant", f"{mutant_id}={path}"]
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO / "runner")}
    proc = subprocess.run(args, cwd=REPO / "runner", env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {m: json.loads((tmp_path / (p.stem + ".json")).read_text()) for m, p in mutants}


def test_the_plan_holds_the_cases_their_neighbours_one_row_and_odd_prime_and_tiny_draws():
    templates = [{"name": "a", "rows": 37, "cols": 1001}, {"name": "b", "rows": 2, "cols": 40009, "outliers": False}]
    anchored, drawn = plan(templates, 60, seed=1)
    shapes = [[(v["case"]["rows"], v["case"]["cols"]) for v in variants] for variants in anchored]
    # each case, its sizes +1 and -1 (3x40010 is over the budget: its rows shrink, not its
    # width), and one row as wide as the case
    assert shapes == [[(37, 1001), (38, 1002), (36, 1000), (1, 1001)], [(2, 40009), (1, 40010), (1, 40008), (1, 40009)]]
    cols = [t["case"]["cols"] for t in drawn]
    assert len(drawn) == 60
    assert any(is_prime(c) for c in cols) and any(c % 2 == 1 for c in cols) and any(c <= 3 for c in cols)
    assert any(c % 2 == 0 and c & (c - 1) for c in cols)  # even, not a power of two
    assert any(c > 32768 for c in cols)  # the wide case's own scale, not only small sizes
    assert all(v["case"]["rows"] * v["case"]["cols"] <= 80018 for vs in anchored for v in vs)
    assert all(t["case"]["rows"] * t["case"]["cols"] <= 80018 for t in drawn)


def test_every_small_case_meets_every_regime_in_every_dtype_whatever_the_seed():
    """The fifth run's misses were combinations a seed never drew: the anchored trials hold each
    (case, regime, dtype) once, the case's size variants taking turns among them."""
    task = read_task(str(ROW_MIN))
    for seed in (41, 7):
        trials = trials_of(task, 0, seed)
        met = {(t["template"], t["regime"], t["dtype"]) for t in trials}
        assert met == {(c["name"], r, d) for c in task["templates"] for r in REGIMES for d in task["dtypes"]}
        assert len(trials) == len(met) == 2 * len(REGIMES) * 2
        wide = {(t["case"]["rows"], t["case"]["cols"]) for t in trials if t["template"] == "wide_3x2051"}
        assert wide == {(3, 2051), (4, 2052), (2, 2050), (1, 2051)}  # as listed, +1, -1, one row


def test_regimes_mix_huge_bfloat16_values_with_a_row_extreme_at_column_0():
    import torch
    x = torch.randn(4, 3000, generator=torch.Generator().manual_seed(0)).to(torch.bfloat16)
    (huge,) = bend((x,), "huge_peak_first")
    assert huge.dtype == torch.bfloat16 and (huge.float().abs() > 65504).float().mean() > 0.3
    assert torch.equal(huge.float().argmax(dim=1)[0::2], torch.zeros(2, dtype=torch.long))  # the maximum first
    assert torch.equal(huge.float().argmin(dim=1)[1::2], torch.zeros(2, dtype=torch.long))  # or the minimum
    (last,) = bend((x,), "peak_last")
    assert torch.equal(last.float().abs().argmax(dim=1), torch.full((4,), 2999))
    (denormal,) = bend((x.float(),), "denormal")
    assert 0 < denormal.abs().max() < torch.finfo(torch.float32).tiny
    y = torch.randn(5, 300, generator=torch.Generator().manual_seed(1))
    (mixed,) = bend((y,), "mixed_rows")  # rows of zeros, -inf, huge, denormals, as drawn
    assert mixed[0].eq(0).all() and mixed[1].eq(-float("inf")).all() and mixed[2].abs().max() > 65504
    assert 0 < mixed[3].abs().max() < torch.finfo(torch.float32).tiny and torch.equal(mixed[4], y[4])
    assert y.abs().max() < 10  # bent on a copy


@pytest.mark.timeout(450)  # every small case in every regime and dtype: 166 s at load 9 on 2 cores
def test_unused_fill_is_equivalent_and_an_unmasked_read_is_exposed(tmp_path):
    equivalent = mutant_file(tmp_path, "cumsum", "other_swapped", 1)
    reads_past = mutant_file(tmp_path, "relu", "mask_dropped", 1)
    found = differential(tmp_path, SUITE / "cumsum", [equivalent], trials=6)[equivalent[0]]
    assert found["verdict"] == "equivalent", found
    assert found["compared"] >= 4 and found["dtypes"] == ["bfloat16", "float16", "float32"]
    assert found["exposed_by"] is None and len(found["trials"]) == found["compared"]
    exposed = differential(tmp_path, SUITE / "relu", [reads_past], trials=3)[reads_past[0]]
    assert exposed["verdict"] == "survived"
    assert exposed["exposed_by"]["template"] == "odd_37x1001"
    assert exposed["exposed_by"]["what"].startswith("out of bounds: kernel _relu_kernel: load of")
    assert "past the end of x_ptr" in exposed["exposed_by"]["what"]


def hand_written(tmp_path, name, old, new):
    golden = (ROW_MIN / "golden.py").read_text()
    assert golden.count(old) == 1
    path = tmp_path / f"row_min.{name}.py"
    path.write_text(golden.replace(old, new))
    return f"mutant:row_min:{name}", path


@pytest.mark.timeout(400)
def test_a_float16_wide_row_and_a_loop_skipping_column_0_are_not_called_equivalent(tmp_path):
    """row_min's looped kernel (rows past 1024 columns) changed two ways: its values converted to
    float16 (exact for every bfloat16 value up to 65504: only huge values in a wide row show it),
    and its chunks starting at column 1 (only a row whose minimum is at column 0 shows it). The
    fifth run's 42 trials called both equivalent."""
    lowered = hand_written(tmp_path, "float16_in_the_loop", "values.to(tl.float32)", "values.to(tl.float16)")
    skips = hand_written(tmp_path, "skips_column_0", "chunk = start + tl.arange(0, CHUNK)",
                         "chunk = start + tl.arange(0, CHUNK) + 1")
    found = differential(tmp_path, ROW_MIN, [lowered, skips], trials=0)
    exposed = found[lowered[0]]["exposed_by"]
    assert found[lowered[0]]["verdict"] == "survived", found[lowered[0]]
    assert exposed["dtype"] == "bfloat16" and exposed["template"] == "wide_3x2051"
    assert exposed["regime"] in ("huge_peak_first", "huge_peak_last", "mixed_rows") and "-inf" in exposed["what"]
    exposed = found[skips[0]]["exposed_by"]
    assert found[skips[0]]["verdict"] == "survived", found[skips[0]]
    assert exposed["template"] == "wide_3x2051" and ("first" in exposed["regime"] or exposed["regime"] == "mixed_rows")
