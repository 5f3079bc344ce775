"""Candidate jobs through the real runner: the facts reported for each kind of submission."""

import os

import torch

from runner_harness import FIXTURES, case, of_type, only, work_file


def calls(messages):
    return of_type(messages, "call")


def test_correct_candidate_reports_its_kernel_and_saves_outputs(runner, jobs):
    request = jobs.candidate("correct", cases=[case(seeds=[3, 4]), case(name="tiny", n=7, dtype="float16", seeds=[5])])
    messages = runner.run(request)
    assert only(messages, "entry")["name"] == "vector_add"
    assert of_type(messages, "error") == []
    got = calls(messages)
    assert [(c["case"], c["dtype"], c["seed"]) for c in got] == [("odd", "float32", 3), ("odd", "float32", 4),
                                                                 ("tiny", "float16", 5)]
    for call in got:
        assert call["ok"] is True and call["kernels"] == ["candidate_add"] and call["other_kernels"] == []
        assert call["inputs_mutated"] is False and call["output_is_input"] is False
        assert call["n_outputs"] == 1 and call["wall_ms"] > 0
    saved = torch.load(os.path.join(request["outputs_dir"], "tiny__float16__5.pt"), weights_only=True)
    assert isinstance(saved, list) and saved[0].shape == (7,) and saved[0].dtype == torch.float16


def test_kernel_function_is_the_fallback_entry(runner, jobs):
    messages = runner.run(jobs.candidate("kernel_function"))
    assert only(messages, "entry")["name"] == "kernel_function"
    assert all(c["ok"] and c["kernels"] == ["add_one_block"] for c in calls(messages))


def test_syntax_error_is_an_import_error_with_its_line(runner, jobs):
    messages = runner.run(jobs.candidate("syntax_error"))
    error = only(messages, "error")
    assert (error["stage"], error["error_kind"], error["line"]) == ("import", "SyntaxError", 4)
    assert calls(messages) == [] and of_type(messages, "done") != []  # the runner finished its work


def test_exception_at_import_names_the_failing_line(runner, jobs):
    error = only(runner.run(jobs.candidate("import_error")), "error")
    assert (error["stage"], error["error_kind"], error["line"]) == ("import", "RuntimeError", 10)
    assert "module-level failure" in error["message"]


def test_missing_entry_lists_definitions_and_suggests_a_near_name(runner, jobs):
    messages = runner.run(jobs.candidate("missing_entry"))
    error = only(messages, "error")
    assert (error["stage"], error["error_kind"]) == ("entry", "MissingEntry")
    assert "helper" in error["message"] and "Did you mean 'vectoradd'" in error["message"]
    assert of_type(messages, "entry") == []


def test_torch_only_candidate_launches_no_kernel(runner, jobs):
    messages = runner.run(jobs.candidate("torch_only"))
    assert all(c["ok"] and c["kernels"] == [] and c["other_kernels"] == [] for c in calls(messages))


def test_kernels_from_other_modules_are_listed_apart(runner, jobs):
    for call in calls(runner.run(jobs.candidate("foreign_kernel"))):
        assert call["kernels"] == [] and call["other_kernels"] == ["some_library.add_kernel"]


def test_autotuned_and_heuristics_kernels_count_as_the_candidates(runner, jobs):
    messages = runner.run(jobs.candidate("autotuned"))
    assert of_type(messages, "error") == []
    for call in calls(messages):
        assert call["ok"] and sorted(call["kernels"]) == ["heuristic_copy", "tuned_add"]


def test_input_mutation_and_aliasing_are_detected(runner, jobs):
    for call in calls(runner.run(jobs.candidate("mutates_input"))):
        assert call["ok"] and call["inputs_mutated"] is True and call["output_is_input"] is True
        assert call["kernels"] == ["add_into"]


def test_exception_in_the_call_reports_class_and_candidate_line(runner, jobs):
    messages = runner.run(jobs.candidate("raises", cases=[case(seeds=[1, 2])]))
    errors = of_type(messages, "error")
    assert [(e["stage"], e["error_kind"], e["line"], e["seed"]) for e in errors] == [
        ("call", "ValueError", 6, 1), ("call", "ValueError", 6, 2)]
    assert [c["ok"] for c in calls(messages)] == [False, False]
    assert messages[-1]["code"] == 0


def test_fault_inside_a_kernel_points_at_the_kernel_line(runner, jobs):
    error = of_type(runner.run(jobs.candidate("kernel_bug", cases=[case(seeds=[1])])), "error")[0]
    assert error["stage"] == "call" and error["line"] == 11 and "undefined_name" in error["message"]


def test_non_tensor_output_is_a_call_error_and_nothing_is_saved(runner, jobs):
    request = jobs.candidate("returns_none", cases=[case(seeds=[1])])
    messages = runner.run(request)
    error = only(messages, "error")
    assert (error["stage"], error["error_kind"]) == ("call", "NonTensorOutput")
    assert only(messages, "call")["ok"] is False
    assert not os.path.exists(os.path.join(request["outputs_dir"], "odd__float32__1.pt"))


def test_a_failed_call_removes_outputs_left_by_an_earlier_run(runner, jobs):
    runner.run(jobs.candidate("correct", cases=[case(seeds=[1])]))
    saved = os.path.join(jobs.outputs_dir, "odd__float32__1.pt")
    assert os.path.exists(saved)
    runner.run(jobs.candidate("raises", cases=[case(seeds=[1])]))
    assert not os.path.exists(saved)


def test_determinism_check_compares_a_second_run(runner, jobs):
    same = only(runner.run(jobs.candidate("correct", determinism=True)), "determinism")
    assert same["same"] is True and same["max_abs_diff"] == 0.0 and same["seed"] == 1
    differs = only(runner.run(jobs.candidate("nondeterministic", determinism=True)), "determinism")
    assert differs["same"] is False and abs(differs["max_abs_diff"] - 1e-3) < 1e-4


def test_a_rerun_comes_back_to_the_warden_only_when_it_differs(runner, jobs):
    timing = {"enabled": True, "warmup": 1, "min_samples": 3, "max_samples": 3, "max_seconds": 5.0}
    for settings in (None, timing):  # the kept outputs: the re-run's alone, or the timed calls' too
        messages = runner.run(jobs.candidate("correct", determinism=True, timing=settings))
        assert only(messages, "determinism")["compared_by"] == "guest" and of_type(messages, "error") == []
        assert all(t["timed_output_mismatches"] == 0 for t in of_type(messages, "timing"))
    for name in ("nondeterministic", "no_outputs_on_rerun"):
        differs = only(runner.run(jobs.candidate(name, cases=[case(seeds=[1])], determinism=True)), "determinism")
        assert differs["compared_by"] == "warden" and differs["same"] is False, name


def test_cpu_timing_uses_wall_clock_within_the_caps(runner, jobs):
    settings = {"enabled": True, "warmup": 1, "min_samples": 3, "max_samples": 6, "max_seconds": 5.0}
    request = jobs.candidate("correct", cases=[case(seeds=[1, 2]), case(name="tiny", n=7, seeds=[9])], timing=settings)
    messages = runner.run(request)
    timings = of_type(messages, "timing")
    assert [(t["case"], t["seed"]) for t in timings] == [("odd", 1), ("tiny", 9)]
    for timing in timings:
        assert timing["method"] == "wall_clock" and timing["stop_reason"] in ("converged", "sample_cap")
        assert 3 <= len(timing["samples_ms"]) <= 6 and all(s > 0 for s in timing["samples_ms"])
    # what the job needed at once: on the CPU the warden times the candidate on one set of
    # buffers (x and y, 1000 floats each), refilled with a fresh set before each call, and one
    # call's output, more than one call's inputs and output
    assert only(messages, "done")["peak_memory"]["io_bytes"] == 2 * 4000 + 4000


def test_a_failed_calls_inputs_count_in_what_the_job_needed(runner, jobs):
    messages = runner.run(jobs.candidate("raises", cases=[case(n=5000, seeds=[1])]))
    assert of_type(messages, "error") and only(messages, "done")["peak_memory"]["io_bytes"] == 2 * 5000 * 4


def test_no_timing_for_a_case_whose_call_failed(runner, jobs):
    settings = {"enabled": True, "warmup": 0, "min_samples": 2, "max_samples": 3, "max_seconds": 1.0}
    assert of_type(runner.run(jobs.candidate("raises", timing=settings)), "timing") == []


def test_broken_reference_module_is_a_task_error_not_the_candidates(runner, jobs):
    task_dir = os.path.join(FIXTURES, "broken_tasks", "import_fails")
    messages = runner.run(jobs.candidate("correct", task_dir=task_dir))
    error = only(messages, "error")
    assert (error["stage"], error["error_kind"], error["line"]) == ("task", "ImportError", 3)
    assert calls(messages) == []


def test_unknown_dtype_is_an_inputs_error(runner, jobs):
    error = only(runner.run(jobs.candidate("correct", cases=[case(dtype="float8", seeds=[1])])), "error")
    assert error["stage"] == "inputs" and "float8" in error["message"]


def test_the_stack_a_guest_inherits_holds_no_request_text_with_seeds(runner, jobs):
    # The zygote's raw request line (every case's seed) sits in the outer frames of the stack
    # the guest is forked on: it must be zeroed before any code of the submission runs.
    request = jobs.candidate("walks_frames", cases=[case(seeds=[424242, 535353])])
    messages = runner.run(request)
    stdout = work_file(request, "stdout.txt")
    assert "WALKED" in stdout, stdout
    assert "LEAK" not in stdout and "424242" not in stdout, stdout
    assert all(c["ok"] for c in calls(messages))
