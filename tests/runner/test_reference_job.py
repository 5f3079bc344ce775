"""Reference jobs: the oracle runs in its own child and compares with saved candidate outputs."""

import os

import pytest

from runner_harness import FIXTURES, case, of_type, only


def compares_after(runner, jobs, candidate, cases=None):
    runner.run(jobs.candidate(candidate, cases=cases))
    messages = runner.run(jobs.reference(cases=cases))
    assert messages[-1]["code"] == 0 and of_type(messages, "done") != []
    return of_type(messages, "compare")


def test_correct_outputs_match_exactly(runner, jobs):
    cases = [case(seeds=[1, 2]), case(name="tiny", n=7, dtype="float16", seeds=[3], atol=1e-3, rtol=1e-3)]
    compares = compares_after(runner, jobs, "correct", cases)
    assert [(c["case"], c["dtype"], c["seed"]) for c in compares] == [
        ("odd", "float32", 1), ("odd", "float32", 2), ("tiny", "float16", 3)]
    for compare in compares:
        assert compare["missing"] is False and compare["n_outputs"] == 1 and compare["ref_n_outputs"] == 1
        facts = compare["outputs"][0]
        assert facts["max_abs_err"] == 0.0 and facts["n_over_tol"] == 0 and facts["nan"] == 0
        assert facts["shape"] == facts["ref_shape"] and facts["dtype"] == facts["ref_dtype"]


def test_wrong_shape_reports_both_shapes_and_no_value_stats(runner, jobs):
    facts = compares_after(runner, jobs, "wrong_shape")[0]["outputs"][0]
    assert facts["shape"] == [999] and facts["ref_shape"] == [1000]
    assert facts["max_abs_err"] is None and facts["n_over_tol"] is None


def test_nan_and_off_by_one_elements_are_counted(runner, jobs):
    facts = compares_after(runner, jobs, "nan_output")[0]["outputs"][0]
    assert facts["nan"] == 1 and facts["ref_nan"] == 0
    assert facts["n_over_tol"] == 2  # the NaN where the reference is finite, and the +1
    assert abs(facts["max_abs_err"] - 1.0) < 1e-6


def test_missing_candidate_output_is_reported(runner, jobs):
    compares = compares_after(runner, jobs, "raises")
    assert [c["missing"] for c in compares] == [True, True]
    assert compares[0]["outputs"] == [] and compares[0]["ref_n_outputs"] == 1


def test_failing_reference_is_a_reference_error(runner, jobs):
    task_dir = os.path.join(FIXTURES, "broken_tasks", "reference_raises")
    messages = runner.run(jobs.reference(cases=[case(seeds=[1])], task_dir=task_dir))
    error = only(messages, "error")
    assert (error["stage"], error["error_kind"], error["seed"]) == ("reference", "ArithmeticError", 1)
    assert of_type(messages, "compare") == []


def test_elements_the_reference_leaves_undefined_are_counted_and_not_judged(runner, jobs):
    task_dir = os.path.join(FIXTURES, "tasks", "partly_undefined")
    runner.run(jobs.candidate("correct", cases=[case(seeds=[1])]))
    request = jobs.reference(cases=[case(seeds=[1])], task_dir=task_dir)
    unchecked = only(runner.run(dict(request)), "compare")["outputs"][0]
    assert unchecked["n_over_tol"] == 10 and "ref_undefined" not in unchecked  # the check is per task
    request["check_reference_defined"] = True
    request["job"] += "-checked"
    checked = only(runner.run(request), "compare")["outputs"][0]
    assert checked["ref_undefined"] == 10 and checked["n_over_tol"] == 0


def test_undefined_elements_do_not_hide_a_wrong_defined_element(runner, jobs):
    task_dir = os.path.join(FIXTURES, "tasks", "partly_undefined")
    runner.run(jobs.candidate("nan_output", cases=[case(seeds=[1])]))
    request = jobs.reference(cases=[case(seeds=[1])], task_dir=task_dir)
    request["check_reference_defined"] = True
    facts = only(runner.run(request), "compare")["outputs"][0]
    assert facts["ref_undefined"] == 10 and facts["n_over_tol"] == 2  # the NaN and the +1 stay judged


def test_a_rerun_that_differs_only_where_the_reference_is_undefined_is_reported_as_such(runner, jobs):
    task_dir = os.path.join(FIXTURES, "tasks", "partly_undefined")
    for name, differs_where_defined in (("varies_in_undefined_tail", False), ("nondeterministic", True)):
        request = jobs.candidate(name, cases=[case(seeds=[1])], determinism=True)
        request["save_rerun_outputs"] = True
        determinism = only(runner.run(request), "determinism")
        assert determinism["same"] is False
        reference = jobs.reference(cases=[case(seeds=[1])], task_dir=task_dir)
        reference["check_reference_defined"] = True
        compare = only(runner.run(reference), "compare")
        assert compare["rerun_differs_where_defined"] is differs_where_defined, name


def test_the_reference_is_called_without_a_default_device_context(runner, jobs):
    runner.run(jobs.candidate("correct", cases=[case(seeds=[1])]))
    task_dir = os.path.join(FIXTURES, "tasks", "mode_stack")
    facts = only(runner.run(jobs.reference(cases=[case(seeds=[1])], task_dir=task_dir)), "compare")["outputs"][0]
    assert facts["n_over_tol"] == 0 and facts["max_abs_err"] == 0.0


def test_elements_read_from_past_an_inputs_end_are_undefined_with_reference_guard_bands(runner, jobs):
    task_dir = os.path.join(FIXTURES, "tasks", "reads_past_end")
    runner.run(jobs.candidate("correct", cases=[case(seeds=[1])]))
    request = jobs.reference(cases=[case(seeds=[1])], task_dir=task_dir)
    request["check_reference_defined"] = True
    unguarded = only(runner.run(dict(request)), "compare")["outputs"][0]
    assert unguarded["ref_undefined"] == 0  # without guards both calls read the same 0
    request["reference_guard_bytes"] = 4096
    request["job"] += "-guarded"
    guarded = only(runner.run(request), "compare")["outputs"][0]
    assert guarded["ref_undefined"] == 1 and guarded["n_over_tol"] == 0


def test_lower_precision_errors_are_measured_beside_the_candidates(runner, jobs):
    precisions = ["tf32", "tf32_rz", "float16", "bfloat16"]
    loose = dict(seeds=[1], atol=1e-2, rtol=1e-2)
    errors = {}
    for candidate in ("correct", "half_add"):
        measured = case(**loose)
        measured["lower_precisions"] = precisions
        facts = compares_after(runner, jobs, candidate, [measured])[0]["outputs"][0]
        assert facts["n_over_tol"] == 0  # both within this tolerance
        assert sorted(facts["lower_precision_err"]) == sorted(precisions)
        errors[candidate] = facts["mean_rel_err"]
        lower = facts["lower_precision_err"]
    assert errors["correct"] == 0.0
    # float16's error on the inputs alone: 2^-12 relative at most per rounding, ~1.7e-4 mean
    assert 5e-5 < lower["float16"] < 5e-4 and lower["tf32"] == pytest.approx(lower["float16"], rel=0.2)
    assert lower["tf32_rz"] > 1.5 * lower["tf32"] and lower["bfloat16"] > 4 * lower["float16"]
    assert errors["half_add"] >= lower["float16"]  # rounded inputs and a rounded sum


def test_cases_without_lower_precisions_and_other_dtypes_are_not_measured(runner, jobs):
    half = case(name="tiny", n=7, dtype="float16", seeds=[3], atol=1e-3, rtol=1e-3)
    half["lower_precisions"] = ["bfloat16"]
    for facts in [c["outputs"][0] for c in compares_after(runner, jobs, "correct", [case(seeds=[1]), half])]:
        assert "lower_precision_err" not in facts
        assert facts["nonzero"] == facts["ref_nonzero"] > 0
