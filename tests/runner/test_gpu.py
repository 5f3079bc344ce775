"""CUDA paths of the sandbox and the checks (skipped without a GPU): the probe's capabilities,
a sandboxed GPU job with every check on, guard bands, poisoning, the timed-output check with
rotation over more input sets than L2 holds, and the kernel profile."""

import os
import shutil
import tempfile

import pytest
import torch

from leased_uids import uid_for
from runner_harness import RunnerProcess, all_checks, case, of_type, only, sandbox_settings, work_file

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

TIMING = {"enabled": True, "warmup": 2, "min_samples": 10, "max_samples": 20, "max_seconds": 2.0}


@pytest.fixture(scope="module")
def gpu_runner():
    process = RunnerProcess(interpret=False)
    yield process
    # the GPU's messages (kernel_profile, ablation, device gates) against the protocol's schema
    assert process.off_schema == [], f"messages off the protocol's schema: {process.off_schema[:3]}"
    process.close()


@pytest.fixture(scope="module")
def folder():
    path = tempfile.mkdtemp(prefix="keval-gpu-")
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def capabilities(gpu_runner):
    messages = gpu_runner.run({"op": "probe", "job": "gp", "device": "cuda", "gpu": 0,
                               "sandbox": sandbox_settings(uid=uid_for("gpu"))})
    probe = only(messages, "probe")
    print("probe:", probe)
    return probe["sandbox_capabilities"]


@pytest.fixture
def gpu_jobs(jobs, folder):
    path = tempfile.mkdtemp(dir=folder)
    os.chmod(path, 0o755)  # the test uid must reach work and output folders inside
    return jobs.in_folder(path)


def sandbox_for(capabilities, folder) -> dict:
    usable = capabilities["root"] and capabilities["cuda_as_uid"] and capabilities["toolkit_readable_as_uid"]
    return sandbox_settings(uid=uid_for("gpu") if usable else None, isolate_network=capabilities["netns"],
                            rlimits={"nofile": 4096, "fsize_bytes": 1 << 30},
                            env={"TRITON_CACHE_DIR": os.path.join(folder, "triton-cache")})


def test_probe_reports_cuda_capabilities(capabilities):
    assert capabilities["root"] is (os.geteuid() == 0)
    if capabilities["root"]:
        assert isinstance(capabilities["cuda_as_uid"], bool)


def test_sandboxed_gpu_job_with_every_check(gpu_runner, gpu_jobs, capabilities, folder):
    settings = sandbox_for(capabilities, folder)
    request = gpu_jobs.candidate("correct", device="cuda", timing=TIMING, determinism=True,
                                 sandbox=settings, checks=all_checks(guard_bytes=4096))
    messages = gpu_runner.run(request)
    print([m for m in messages if m["type"] in ("sandbox", "error", "tampering", "timing", "kernel_profile", "exit")])
    facts = only(messages, "sandbox")
    assert facts["uid"] == (settings["uid"] if settings["uid"] is not None else os.getuid())
    assert facts["network_isolated"] is capabilities["netns"]
    assert of_type(messages, "error") == [] and of_type(messages, "tampering") == []
    for call in of_type(messages, "call"):
        assert call["ok"] and call["kernels"] == ["candidate_add"] and call["guard_violations"] == []
        assert call["poisoned"] is True and call["foreign_output_types"] == []
    timing = only(messages, "timing")
    assert timing["method"] == "cuda_event_cold_l2" and timing["input_sets"] == 16
    assert timing["timed_output_checks"] >= 5 and timing["timed_output_mismatches"] == 0
    profile = only(messages, "kernel_profile")
    own = [k for k in profile["kernels"] if k["own"]]
    assert [k["name"] for k in own] == ["candidate_add"] and profile["own_share"] > 0.5
    assert messages[-1]["code"] == 0
    print("stderr of the job:", work_file(request, "stderr.txt"))
    reference = gpu_jobs.reference(device="cuda")
    reference["sandbox"] = settings
    compares = of_type(gpu_runner.run(reference), "compare")
    assert len(compares) == 2 and all(c["outputs"][0]["n_over_tol"] == 0 for c in compares)


def test_pointer_cache_mismatches_on_gpu(gpu_runner, gpu_jobs):
    for one_buffer in (None, 1):  # every set in its own buffers; every set through one
        request = gpu_jobs.candidate("pointer_cache", device="cuda", timing=TIMING, checks=all_checks())
        if one_buffer:
            request["rotation_buffer_bytes"] = one_buffer
        timing = only(gpu_runner.run(request), "timing")
        assert timing["timed_output_checks"] >= 5 and timing["timed_output_mismatches"] > 0, one_buffer


def test_guard_bands_on_gpu(gpu_runner, gpu_jobs):
    cases = [case(seeds=[1])]
    call = only(gpu_runner.run(gpu_jobs.candidate("oob_store", device="cuda", cases=cases,
                                                  checks=all_checks(guard_bytes=256))), "call")
    assert call["ok"] and call["guard_violations"] == [0]
    gpu_runner.run(gpu_jobs.candidate("oob_read", device="cuda", cases=cases, checks=all_checks(guard_bytes=256)))
    facts = only(gpu_runner.run(gpu_jobs.reference(device="cuda", cases=cases)), "compare")["outputs"][0]
    assert facts["nan"] > 0 and facts["ref_nan"] == 0


def test_poisoned_outputs_on_gpu(gpu_runner, gpu_jobs):
    cases = [case(n=100000, seeds=[1])]
    call = only(gpu_runner.run(gpu_jobs.candidate("uninitialized_output", device="cuda", cases=cases,
                                                  checks=all_checks())), "call")
    assert call["poisoned"] is True
    facts = only(gpu_runner.run(gpu_jobs.reference(device="cuda", cases=cases)), "compare")["outputs"][0]
    assert facts["nan"] == 100000


def test_library_time_is_not_own_time(gpu_runner, gpu_jobs):
    messages = gpu_runner.run(gpu_jobs.candidate("torch_only", device="cuda", checks=all_checks()))
    profile = only(messages, "kernel_profile")
    print(profile)
    assert profile["total_time_us"] > 0 and profile["own_time_us"] == 0 and profile["own_share"] == 0


def test_clock_patch_is_tampering_on_gpu(gpu_runner, gpu_jobs):
    messages = gpu_runner.run(gpu_jobs.candidate("patches_clock", device="cuda", timing=TIMING, checks=all_checks()))
    assert only(messages, "tampering")["names"] == ["time.perf_counter"]
    assert all(s > 0 for s in only(messages, "timing")["samples_ms"])


def test_a_baseline_of_a_large_case_holds_two_sets_not_one_more_than_the_seeds(gpu_runner, gpu_jobs):
    """Sets of 2 GiB (over 2 x L2: one buffer): the golden baseline adds its set and the drawn
    values to what the warden holds (and its outputs), not the candidate's two seeds' sets and a
    copy (timing_job.py's one_set_inputs)."""
    set_bytes, output_bytes = 2 << 30, 1 << 30  # vec_add: two float32 inputs of 2^28, one output
    held = {}
    for baselines in (False, True):
        request = gpu_jobs.candidate("correct", device="cuda", cases=[case(n=1 << 28, seeds=[1, 2])], timing=TIMING)
        request.update(kind="timing", device_gate=True,
                       baselines=[{"name": "golden", "code_file": os.path.join(request["task_dir"], "golden.py")}]
                       if baselines else [])
        os.makedirs(request["work_dir"], exist_ok=True)
        for k in range(4):  # the controller's go-aheads, given in advance
            open(os.path.join(request["work_dir"], f"device-alone-{k}"), "w").close()
        messages = gpu_runner.run(request)
        assert of_type(messages, "error") == [], of_type(messages, "error")
        held[baselines] = only(messages, "done")["peak_memory"]["gpu_bytes"]
    added = held[True] - held[False]
    print(f"warden GPU peak: {held[False] / 2**30:.2f} GiB alone, {held[True] / 2**30:.2f} GiB with the golden")
    assert added <= 2 * set_bytes + output_bytes + (512 << 20)  # three sets and more before
