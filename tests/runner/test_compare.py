"""compare.py in-process: the raw error facts the controller judges."""

import math

import pytest
import torch

import runner_harness  # noqa: F401  (puts runner/ on sys.path)
from keval_runner.compare.compare import (NonTensorOutput, as_output_list, compare_output, compare_outputs,
                                  max_abs_diff, tensors_identical, value_stats,
                                  within_tolerance)

NAN, INF = float("nan"), float("inf")


def facts(out, ref, atol=0.0, rtol=0.0):
    return compare_output(0, torch.tensor(out), torch.tensor(ref), atol, rtol)


def test_identical_tensors_have_zero_error():
    f = facts([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert (f["max_abs_err"], f["max_rel_err"], f["n_over_tol"]) == (0.0, 0.0, 0)
    assert (f["nan"], f["inf"], f["ref_nan"], f["ref_inf"]) == (0, 0, 0, 0)
    assert f["shape"] == [3] and f["dtype"] == "float32" and f["numel"] == 3


def test_tolerance_is_atol_plus_rtol_times_reference():
    # |diff| = 0.5 everywhere; allowed = 0.1 + 0.1*|ref| -> 0.2, 1.1, 10.1
    f = facts([1.5, 10.5, 100.5], [1.0, 10.0, 100.0], atol=0.1, rtol=0.1)
    assert f["n_over_tol"] == 1
    assert f["max_abs_err"] == pytest.approx(0.5)
    assert f["max_rel_err"] == pytest.approx(0.5)


def test_nan_where_reference_is_finite_counts_over_tolerance():
    f = facts([NAN, 1.0], [0.0, 1.0], atol=1.0, rtol=1.0)
    assert f["nan"] == 1 and f["ref_nan"] == 0 and f["n_over_tol"] == 1
    assert f["max_abs_err"] == 0.0  # only the finite pair is in the error stats


def test_matching_nan_and_same_sign_inf_agree_but_opposite_inf_does_not():
    f = facts([NAN, INF, -INF, 2.0], [NAN, INF, INF, 2.0])
    assert f["n_over_tol"] == 1
    assert (f["nan"], f["inf"], f["ref_nan"], f["ref_inf"]) == (1, 2, 1, 2)


def test_finite_where_reference_is_nan_counts():
    assert facts([1.0, 5.0], [NAN, 5.0], atol=1e9)["n_over_tol"] == 1


def test_no_finite_pair_leaves_error_stats_null():
    f = facts([NAN, NAN], [1.0, 2.0])
    assert f["max_abs_err"] is None and f["max_rel_err"] is None and f["n_over_tol"] == 2


def test_relative_error_uses_a_tiny_floor_for_zero_reference():
    f = facts([1e-3], [0.0])
    assert f["max_abs_err"] == pytest.approx(1e-3) and f["max_rel_err"] > 1e100


def test_shape_mismatch_reports_shapes_and_skips_values():
    f = compare_output(0, torch.zeros(2, 3), torch.zeros(3, 2), 1.0, 1.0)
    assert f["shape"] == [2, 3] and f["ref_shape"] == [3, 2]
    assert all(f[k] is None for k in ("max_abs_err", "max_rel_err", "n_over_tol", "nan", "inf"))


def test_dtype_mismatch_still_compares_values():
    f = compare_output(0, torch.tensor([1.0, 2.0], dtype=torch.float16), torch.tensor([1.0, 2.5]), 0.0, 0.0)
    assert f["dtype"] == "float16" and f["ref_dtype"] == "float32"
    assert f["n_over_tol"] == 1 and f["max_abs_err"] == pytest.approx(0.5)


def test_integer_outputs_are_exact_whatever_the_tolerance():
    big = 2**53 + 1  # float64 cannot tell these apart; the exact path can
    f = compare_output(0, torch.tensor([big, 3]), torch.tensor([big - 1, 3]), 10.0, 10.0)
    assert f["n_over_tol"] == 1
    b = compare_output(0, torch.tensor([True, False]), torch.tensor([True, True]), 1.0, 1.0)
    assert b["n_over_tol"] == 1


def test_errors_are_computed_in_float64():
    out = torch.tensor([1.0 + 2**-20], dtype=torch.float32)
    ref = torch.tensor([1.0], dtype=torch.float64)
    assert compare_output(0, out, ref, 0.0, 0.0)["max_abs_err"] == pytest.approx(2**-20, rel=1e-12)


def test_compare_outputs_pairs_indices_present_on_both_sides():
    got = compare_outputs([torch.ones(2), torch.ones(3)], [torch.ones(2)], 0.0, 0.0)
    assert [g["index"] for g in got] == [0]


def test_output_list_normalisation():
    t = torch.ones(1)
    assert as_output_list(t)[0] is t
    assert len(as_output_list((t, t))) == 2 and len(as_output_list([t])) == 1
    with pytest.raises(NonTensorOutput):
        as_output_list(None)
    with pytest.raises(NonTensorOutput, match="output 1 is float"):
        as_output_list((t, 1.5))


def test_identity_treats_nan_as_equal_and_catches_changes():
    a = torch.tensor([NAN, 1.0])
    assert tensors_identical(a, a.clone())
    assert not tensors_identical(a, torch.tensor([NAN, 2.0]))
    assert not tensors_identical(a, a.to(torch.float64))
    assert not tensors_identical(torch.zeros(2), torch.zeros(1, 2))


def test_max_abs_diff_over_finite_elements():
    assert max_abs_diff([torch.tensor([1.0, NAN])], [torch.tensor([1.25, NAN])]) == 0.25
    assert max_abs_diff([torch.tensor([NAN])], [torch.tensor([1.0])]) is None
    assert not math.isnan(max_abs_diff([torch.zeros(3)], [torch.zeros(3)]))


def test_strides_are_reported_for_both_sides():
    out = torch.zeros(3, 2).t()  # a transposed view
    f = compare_output(0, out, torch.zeros(2, 3), 0.0, 0.0)
    assert f["stride"] == [1, 2] and f["ref_stride"] == [3, 1] and f["n_over_tol"] == 0


def test_changed_elements_treats_nan_as_equal_and_different_shapes_as_incomparable():
    from keval_runner.compare.compare import changed_elements, not_judged_where_undefined

    first = torch.tensor([1.0, float("nan"), 3.0, 4.0])
    second = torch.tensor([1.0, float("nan"), -3.0, 4.0])
    mask = changed_elements(first, second)
    assert mask.tolist() == [False, False, True, False]
    assert changed_elements(first, second[:3]) is None
    judged = not_judged_where_undefined([torch.tensor([0.0, 2.0, 7.0, 4.0])], [first], [mask])[0]
    assert judged.tolist()[2] == 3.0 and judged.tolist()[0] == 0.0  # only the undefined element is taken


def test_slices_give_the_facts_of_the_whole(monkeypatch):
    import keval_runner.compare.compare as compare

    g = torch.Generator().manual_seed(3)
    ref = torch.randn(7, 13, generator=g)
    out = ref + 1e-3 * torch.randn(7, 13, generator=g)
    out[2, 5], out[4, 1], ref[6, 0] = NAN, INF, NAN
    out_t = out.t()  # not contiguous: sliced after a flattening copy
    whole = compare_output(0, out_t, ref.t(), 1e-3, 1e-3)
    whole_diff = max_abs_diff([out_t], [ref.t()])
    whole_int = compare_output(0, torch.arange(50), torch.arange(50) % 7, 0, 0)
    monkeypatch.setattr(compare, "CHUNK_ELEMENTS", 8)  # 12 slices
    assert compare_output(0, out_t, ref.t(), 1e-3, 1e-3) == whole
    assert max_abs_diff([out_t], [ref.t()]) == whole_diff and whole_diff > 0
    assert compare_output(0, torch.arange(50), torch.arange(50) % 7, 0, 0) == whole_int
    assert whole["nan"] == 1 and whole["inf"] == 1 and whole["ref_nan"] == 1 and whole["n_over_tol"] > 2


def test_tolerance_ratio_is_the_largest_diff_over_its_allowance():
    # |diff| = 0.5 everywhere; allowed = 0.1 + 0.1*|ref| -> 0.2, 1.1, 10.1
    f = facts([1.5, 10.5, 100.5], [1.0, 10.0, 100.0], atol=0.1, rtol=0.1)
    assert f["max_tol_ratio"] == pytest.approx(0.5 / 0.2)
    assert (f["nan_disagree"], f["inf_disagree"]) == (0, 0)
    within = facts([1.05, 10.5], [1.0, 10.0], atol=0.1, rtol=0.1)
    assert within["n_over_tol"] == 0 and within["max_tol_ratio"] == pytest.approx(0.5 / 1.1)


def test_tolerance_ratio_at_the_boundary_agrees_with_the_count():
    # in float64, |1.25 - 1.0| is exactly atol: inside, ratio exactly 1
    at = compare_output(0, torch.tensor([1.25], dtype=torch.float64), torch.tensor([1.0], dtype=torch.float64), 0.25, 0.0)
    assert at["n_over_tol"] == 0 and at["max_tol_ratio"] == 1.0
    beyond = compare_output(0, torch.tensor([math.nextafter(1.25, 2.0)], dtype=torch.float64),
                            torch.tensor([1.0], dtype=torch.float64), 0.25, 0.0)
    assert beyond["n_over_tol"] == 1 and beyond["max_tol_ratio"] > 1.0


def test_a_difference_under_a_zero_tolerance_is_infinitely_outside_it():
    f = facts([1.0, 0.5], [1.0, 0.0], atol=0.0, rtol=0.1)  # allowed is 0 where the reference is 0
    assert f["n_over_tol"] == 1 and f["max_tol_ratio"] == math.inf
    assert facts([0.0, 2.0], [0.0, 2.0])["max_tol_ratio"] == 0.0  # equal under tolerance 0: 0/0 reads 0
    exact = compare_output(0, torch.tensor([2**53 + 1, 3]), torch.tensor([2**53, 3]), 10.0, 10.0)
    assert exact["n_over_tol"] == 1 and exact["max_tol_ratio"] == math.inf
    same = compare_output(0, torch.tensor([5, 3]), torch.tensor([5, 3]), 0.0, 0.0)
    assert same["max_tol_ratio"] == 0.0


def test_nan_and_inf_disagreements_are_counted_apart():
    f = facts([NAN, 1.0, NAN, INF, -INF, INF, NAN, 2.0, NAN],
              [0.0, NAN, NAN, INF, INF, 3.0, INF, 2.0, NAN])
    # NaN against 0, 1 against NaN, NaN against Inf: NaN; -Inf against Inf, Inf against 3: Inf
    assert (f["nan_disagree"], f["inf_disagree"]) == (3, 2)
    assert f["n_over_tol"] == 5 and f["max_tol_ratio"] == 0.0  # the finite pair (2, 2) agrees
    assert facts([NAN], [NAN])["max_tol_ratio"] is None  # no finite pair


def test_statistics_decide_as_the_count_does():
    """The controller's rule on the statistics (ratio > 1 or a disagreement) gives the count's verdict."""
    g = torch.Generator().manual_seed(11)
    for trial in range(200):
        ref = torch.randn(64, generator=g, dtype=torch.float64) * 10 ** float(torch.randint(-3, 4, (1,), generator=g))
        noise = torch.randn(64, generator=g, dtype=torch.float64) * 10 ** float(torch.randint(-7, 0, (1,), generator=g))
        out = (ref + noise).to(torch.float32)
        if trial % 7 == 0:
            out[int(torch.randint(0, 64, (1,), generator=g))] = [NAN, INF, -INF][trial % 3]
        if trial % 11 == 0:
            ref[int(torch.randint(0, 64, (1,), generator=g))] = 0.0
        atol, rtol = [(1e-5, 1e-5), (1e-3, 0.0), (0.0, 1e-4)][trial % 3]
        f = compare_output(0, out, ref, atol, rtol)
        ratio = f["max_tol_ratio"] if f["max_tol_ratio"] is not None else 0.0
        assert (f["n_over_tol"] > 0) == (ratio > 1 or f["nan_disagree"] + f["inf_disagree"] > 0), (trial, f)


def test_shape_mismatch_leaves_the_statistics_null():
    f = compare_output(0, torch.zeros(2, 3), torch.zeros(3, 2), 1.0, 1.0)
    assert all(f[k] is None for k in ("max_tol_ratio", "nan_disagree", "inf_disagree"))


def test_mean_relative_error_and_nonzero_counts():
    f = facts([1.0, -2.0, 0.0, 5.0], [1.5, -2.0, 0.0, 4.5])
    assert f["mean_rel_err"] == pytest.approx(1.0 / 8.0)  # (0.5 + 0.5) / (1.5 + 2 + 4.5)
    assert (f["nonzero"], f["ref_nonzero"]) == (3, 3)
    zeros = facts([0.0, 0.0, NAN], [1e-9, 0.0, 3.0])
    assert (zeros["nonzero"], zeros["ref_nonzero"]) == (1, 2)  # NaN is not 0
    assert facts([0.0, 0.0], [0.0, 0.0])["mean_rel_err"] is None  # |ref| sums to 0
    assert compare_output(0, torch.arange(5), torch.arange(5), 0, 0)["mean_rel_err"] is None  # exact outputs


def test_mean_relative_error_is_infinite_where_a_finite_reference_meets_nan_or_inf():
    from keval_runner.compare.compare import mean_relative_error

    assert mean_relative_error(torch.tensor([1.0, INF]), torch.tensor([1.0, 2.0])) == "inf"
    assert mean_relative_error(torch.tensor([1.0, INF, NAN]), torch.tensor([2.0, INF, NAN])) == pytest.approx(0.5)
    assert mean_relative_error(torch.zeros(3), torch.zeros(2)) is None


def test_lower_precisions_round_only_float32_tensors():
    from keval_runner.compare.precision import round_to, rounded_args

    x = torch.tensor([1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -12, 98304.0, -(1.0 + 2.0 ** -10 + 2.0 ** -20), INF, NAN])
    tf32 = round_to(x, "tf32")
    # ties to even at 2^-11; 2^-12 rounds down; no overflow at 98304 (float16 overflows); below the tie rounds to nearest
    assert tf32[:5].tolist() == [1.0, 1.0 + 2.0 ** -9, 1.0, 98304.0, -(1.0 + 2.0 ** -10)]
    assert math.isinf(tf32[5]) and math.isnan(tf32[6])
    assert round_to(x, "tf32_rz")[1].item() == 1.0 + 2 * 2.0 ** -11  # truncated
    assert math.isinf(round_to(x, "float16")[3]) and round_to(x, "bfloat16").dtype == torch.float32
    idx = torch.arange(3)
    args = rounded_args((x, [idx, 0.5], torch.ones(2, dtype=torch.float16)), "bfloat16")
    assert args[1][0] is idx and args[1][1] == 0.5 and args[2].dtype == torch.float16


def _stats_verdict(out, ref, atol, rtol):
    stats = value_stats(out, ref, atol, rtol)
    return not (stats["n_over_tol"] or stats["nan_disagree"] or stats["inf_disagree"])


@pytest.mark.timeout(120)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.complex64,
                                   torch.int32, torch.bool], ids=str)
def test_within_tolerance_gives_value_stats_verdict(dtype):
    # the warden's lean check of timed outputs agrees with the full facts, specials included
    g = torch.Generator().manual_seed(7)
    verdicts = set()
    for trial in range(40):
        ref = (torch.randn(257, generator=g, dtype=torch.float64) * 10).to(dtype) if dtype != torch.bool else \
            torch.rand(257, generator=g) > 0.5
        out = ref.clone()
        if trial % 4 == 1 and dtype.is_floating_point:
            out[trial] = out[trial] + 3.0 * (0.01 + 0.01 * abs(float(ref[trial].real if ref.is_complex() else ref[trial])))
        if trial % 4 == 2 and (dtype.is_floating_point or dtype.is_complex):
            ref[trial] = out[trial] = NAN  # NaN facing NaN agrees, and an infinity the same one
            ref[trial + 1] = out[trial + 1] = INF
            if trial % 8 == 2:
                out[trial + 1] = -INF
            if trial % 16 == 6:
                out[trial + 2] = NAN
        if trial % 4 == 3 and not (dtype.is_floating_point or dtype.is_complex):
            out[trial] = ~out[trial] if dtype == torch.bool else out[trial] + 1
        verdict = _stats_verdict(out, ref, 0.01, 0.01)
        verdicts.add(verdict)
        assert within_tolerance(out, ref, 0.01, 0.01) == verdict, trial
    assert verdicts == {True, False}


@pytest.mark.timeout(120)
def test_within_tolerance_looks_at_every_slice():
    ref = torch.zeros((1 << 22) + 5)
    out = ref.clone()
    assert within_tolerance(out, ref, 0.0, 0.0)
    out[-1] = 1.0  # past the first slice
    assert not within_tolerance(out, ref, 0.0, 0.0)
    assert not within_tolerance(out[:-1], ref, 0.0, 0.0)  # another shape
