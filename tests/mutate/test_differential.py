"""The differential check on real goldens and mutants (CPU interpreter, a few trials): a mutant
whose masked-off lanes are never used is proven equivalent with its evidence; one that reads
past its input is exposed by the interpreter's bounds check, though no output shows it; the
two kinds of survivor the fifth run's check called equivalent (bench/runs/2026-12-05-mutation-
cpu-5.md) are exposed: a float16 conversion only bfloat16 values past 65504 in a wide row show,
and a chunk loop that skips column 0; and the three the seventh run's check called equivalent
(bench/runs/2026-12-05-mutation-cpu-7.md): a kernel wrong only past the small cases' sizes, one
wrong only where the second input is huge, one wrong only on a row wholly far below zero."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO
from keval_mutate.mutants import make_mutants
from keval_mutate.operators import BY_NAME
from keval_mutate.differential import read_task
from keval_mutate.trial_plan import RAISED_REGIMES, trials_of
from keval_mutate.trial_shapes import RAISED_CALL_S, is_prime, plan, within_time
from keval_mutate.trial_values import REGIMES, bend

SUITE = REPO / "suites" / "keval"
ROW_MIN = REPO / "tests" / "mutate" / "fixtures" / "suite" / "row_min"  # a fused and a looped kernel
BIASED_SOFTMAX = REPO / "tests" / "mutate" / "fixtures" / "suite" / "biased_softmax"  # two floating inputs


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
    anchored, _, drawn = plan(templates, 60, seed=1)
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
        trials = [t for t in trials_of(task, 0, seed) if not t["raised"]]
        met = {(t["template"], t["regime"], t["dtype"]) for t in trials}
        assert met == {(c["name"], r, d) for c in task["templates"] for r in REGIMES for d in task["dtypes"]}
        assert len(trials) == len(met) == 2 * len(REGIMES) * 2
        assert {t["which"] for t in trials} == {"first"}  # row_min has one input
        wide = {(t["case"]["rows"], t["case"]["cols"]) for t in trials if t["template"] == "wide_3x2051"}
        assert wide == {(3, 2051), (4, 2052), (2, 2050), (1, 2051)}  # as listed, +1, -1, one row


def test_each_case_is_raised_past_every_small_size_one_symbol_at_a_time():
    """Loops, chunks and splits that start only past the small sizes (softmax_dim0's splits,
    softmax_wide's chunks, group_norm's chunks of a group) need trials past them: each symbol
    in turn to the task's largest case's value (or 4x the case's), odd and even but no power of
    two, cut into an even and an odd number of blocks of any power of two, the others halved to
    fit 4x the largest small case."""
    templates = [{"name": "a", "rows": 37, "cols": 1001}, {"name": "b", "rows": 2, "cols": 20009}]
    cases = [{"rows": 37, "cols": 1001}, {"rows": 2, "cols": 20009}, {"rows": 8192, "cols": 8192},
             {"rows": 3, "cols": 4194301}]
    _, raised, _ = plan(templates, 0, seed=1, cases=cases)
    assert [(r["template"], r["symbol"]) for r in raised] == [("a", "rows"), ("a", "cols"), ("b", "rows"),
                                                             ("b", "cols")]
    budget = 4 * 40018
    for entry in raised:
        name = entry["symbol"]
        values = [v["case"][name] for v in entry["variants"]]
        assert values[0] % 2 == 1 and values[1] % 2 == 0 and values[1] & (values[1] - 1)  # odd; even, no power of two
        for block in (16, 1024, 16384):
            if values[0] > 2 * block:  # six chunks padded to eight, as softmax_wide's merge needs
                count = -(-values[0] // block)
                assert count % 2 == 0 and count & (count - 1) and values[0] % block
            if values[1] > 2 * block:
                assert -(-values[1] // block) % 2 == 1 and values[1] % block
        assert all(v > 4 * max(t[name] for t in templates) or v >= 8192 for v in values), entry
        assert all(v["case"]["rows"] * v["case"]["cols"] <= budget + 3 for v in entry["variants"])
    assert raised[0]["variants"][0]["case"]["rows"] == 3 * 4096 - 1  # past the large case's rows
    assert raised[0]["variants"][1]["case"]["rows"] == 8192 + 2
    assert raised[1]["variants"][0]["case"]["cols"] == 3 * 32768 - 1  # 4194301 columns, below the budget
    # a raise the interpreter would take too long over is cut back to fit RAISED_CALL_S a call
    trial = {**raised[0]["variants"][0], "regime": "huge_peak_first"}
    assert within_time(trial, case_s=0.001) is trial
    slow = within_time(trial, case_s=RAISED_CALL_S / 10)  # 12287 / 37 times a tenth of the limit
    assert 2 * 37 < slow["case"]["rows"] <= 10 * 37 + 2 and slow["case"]["rows"] == 3 * 64 - 1  # its form
    assert "lowered from 12287" in slow["kinds"]["rows"]


def test_every_regime_bends_all_the_floating_inputs_too_and_the_draws_each_in_turn():
    """fused_add_rms_norm's residual (its second input) past float16's range was never bent
    while the check bent only the first: with two floating inputs, every regime meets every
    dtype again with both bent, and the drawn trials bend the first, the second, then both."""
    task = read_task(str(BIASED_SOFTMAX))
    trials = trials_of(task, 6, 41, floating=2)
    both = {t["regime"] for t in trials if t["which"] == "all" and t["kinds"].get("shape") and not t["raised"]}
    assert both == set(REGIMES) - {"as_drawn"}
    assert [t["which"] for t in trials if t["kinds"].get("shape") is None][:6] == ["first", 1, "all", "first", 1, "all"]
    raised = [(t["regime"], t["which"]) for t in trials if t["raised"]]
    assert raised == list(RAISED_REGIMES) * 2  # rows, then cols, raised
    import torch
    n = 4
    x, b = torch.ones(3, 4), torch.ones(3, 4)
    (bx, _, bb) = bend((x, n, b), "negative_row_and_column", "all")
    assert torch.equal(bx[1, 1:], torch.full((3,), -199.0)) and bx[1, 0] == -399  # a whole row
    assert torch.equal(bx[[0, 2], 0], torch.full((2,), -199.0))  # and a whole column
    assert torch.equal(bx[[0, 2], 1:], x[[0, 2], 1:]) and torch.equal(bb, bx)
    assert bend((x, n, b), "negative_row_and_column", 1)[0] is x  # the second floating input alone
    assert bend((x, n, b), "negative_row_and_column")[2] is b  # the first alone


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


def hand_written(folder, task_dir, name, old, new):
    golden = (task_dir / "golden.py").read_text()
    assert golden.count(old) == 1
    path = folder / f"{task_dir.name}.{name}.py"
    path.write_text(golden.replace(old, new))
    return f"mutant:{task_dir.name}:{name}", path


@pytest.mark.timeout(400)
def test_a_float16_wide_row_and_a_loop_skipping_column_0_are_not_called_equivalent(tmp_path):
    """row_min's looped kernel (rows past 1024 columns) changed two ways: its values converted to
    float16 (exact for every bfloat16 value up to 65504: only huge values in a wide row show it),
    and its chunks starting at column 1 (only a row whose minimum is at column 0 shows it). The
    fifth run's 42 trials called both equivalent."""
    lowered = hand_written(tmp_path, ROW_MIN, "float16_in_the_loop", "values.to(tl.float32)", "values.to(tl.float16)")
    skips = hand_written(tmp_path, ROW_MIN, "skips_column_0", "chunk = start + tl.arange(0, CHUNK)",
                         "chunk = start + tl.arange(0, CHUNK) + 1")
    found = differential(tmp_path, ROW_MIN, [lowered, skips], trials=0)
    exposed = found[lowered[0]]["exposed_by"]
    assert found[lowered[0]]["verdict"] == "survived", found[lowered[0]]
    assert exposed["dtype"] == "bfloat16" and exposed["template"] == "wide_3x2051"
    assert exposed["regime"] in ("huge_peak_first", "huge_peak_last", "mixed_rows") and "-inf" in exposed["what"]
    exposed = found[skips[0]]["exposed_by"]
    assert found[skips[0]]["verdict"] == "survived", found[skips[0]]
    assert exposed["template"] == "wide_3x2051" and ("first" in exposed["regime"] or exposed["regime"] == "mixed_rows")


@pytest.fixture(scope="module")
def biased_softmax_checked(tmp_path_factory):
    """softmax(x + b) in bfloat16 changed three ways, each right on every trial the old check
    planned without draws (bench/runs/2026-12-05-mutation-cpu-7.md has the real ones): rows past
    16 read and write row `program_id % 16` (the one small case has 7 rows, and the old draws
    stayed within 1.5x: right on its 42 draws too); b converted to float16 (exact for b as drawn:
    only a huge b shows it); each row's maximum taken with 0, as a maximum padded with 0 instead
    of -inf is (only a row wholly below ~-87, where exp underflows to 0, shows it: 0/0). No draws
    (trials=0): coverage, not chance. The anchored, all-inputs and raised trials: 35."""
    folder = tmp_path_factory.mktemp("biased_softmax")
    load_b = "b = tl.load(b_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)"
    mutants = {
        "past_16": hand_written(folder, BIASED_SOFTMAX, "rows_past_16_wrap", "row = tl.program_id(0).to(tl.int64)",
                                "row = (tl.program_id(0) % 16).to(tl.int64)"),
        "b_in_float16": hand_written(folder, BIASED_SOFTMAX, "b_in_float16", load_b,
                                     load_b.replace(".to(tl.float32)", ".to(tl.float16).to(tl.float32)")),
        "max_with_0": hand_written(folder, BIASED_SOFTMAX, "max_with_0", "m = tl.max(z, axis=0)",
                                   "m = tl.maximum(tl.max(z, axis=0), 0.0)"),
    }
    found = differential(folder, BIASED_SOFTMAX, list(mutants.values()), trials=0)
    return {key: found[mutant_id] for key, (mutant_id, _) in mutants.items()}


@pytest.mark.timeout(300)
def test_a_kernel_wrong_only_past_the_small_sizes_meets_a_raised_case(biased_softmax_checked):
    """softmax_dim0's splits and softmax_wide's chunks loop only past every small case (the
    seventh run): the old check's trials stayed within the largest small case's sizes."""
    found = biased_softmax_checked["past_16"]
    assert found["verdict"] == "survived", found
    exposed = found["exposed_by"]
    assert exposed["case"]["rows"] > 16 and exposed["kinds"]["shape"] == "a case of the task, raised"
    assert exposed["kinds"]["rows"].startswith("raised past the small cases")


@pytest.mark.timeout(300)
def test_a_second_input_past_float16s_range_is_bent(biased_softmax_checked):
    """fused_add_rms_norm's residual converted to float16 (the seventh run): the old check bent
    x alone and called it equivalent; every regime now also bends every floating input."""
    found = biased_softmax_checked["b_in_float16"]
    assert found["verdict"] == "survived", found
    exposed = found["exposed_by"]
    assert exposed["regime"] in ("huge_peak_first", "huge_peak_last", "mixed_rows") and exposed["which"] == "all"
    assert exposed["bent"] == [0, 1] and "nan where the reference has" in exposed["what"]


@pytest.mark.timeout(300)
def test_a_row_wholly_far_below_zero_is_tried(biased_softmax_checked):
    """softmax_wide's and softmax_dim0's padded maxima filled with 0 (the seventh run): no regime
    of the old check put a whole row far below zero, and it called the mutant equivalent."""
    found = biased_softmax_checked["max_with_0"]
    assert found["verdict"] == "survived", found
    exposed = found["exposed_by"]
    assert exposed["regime"] == "negative_row_and_column" and exposed["bent"] == [0]
    assert "nan where the reference has" in exposed["what"]
