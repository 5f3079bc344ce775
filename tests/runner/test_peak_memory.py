"""A job's peak memory (peak_memory.py): the host figure follows what the process and its
reaped children touched, the GPU figure is 0 where CUDA never started, and a guest's figure is
kept apart. Each host check runs in a fresh interpreter and goes past the peak it starts with."""
import json
import pathlib
import subprocess
import sys

from keval_runner.device import peak_memory

RUNNER = str(pathlib.Path(__file__).resolve().parents[2] / "runner")


def fresh(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", "import json, os, subprocess, sys\n"
                          "from keval_runner.device import peak_memory\n" + code],
                         check=True, capture_output=True, text=True, env={"PYTHONPATH": RUNNER})
    return json.loads(out.stdout)


def test_the_host_peak_grows_with_what_the_process_touches():
    # Linux keeps the largest resident set across fork and exec, so a fresh interpreter starts
    # at its parent's (pytest's) high-water mark: it touches that much again and more.
    seen = fresh("before = peak_memory.host_bytes()\n"
                 "held = bytearray(os.urandom(1)) * (before + (256 << 20))\n"
                 "print(json.dumps({'before': before, 'after': peak_memory.host_bytes()}))")
    assert seen["after"] >= seen["before"] + (200 << 20)


def test_the_host_peak_counts_a_reaped_child_larger_than_the_process():
    seen = fresh("import resource\n"
                 "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
                 "size = own + (512 << 20)\n"
                 "subprocess.run([sys.executable, '-c', f'b = bytearray({size}); b[::4096] = b\"x\" * len(b[::4096])'],"
                 " check=True)\n"
                 "print(json.dumps({'own': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,"
                 " 'peak': peak_memory.host_bytes()}))")
    assert seen["peak"] >= seen["own"] + (400 << 20)


def test_no_gpu_figure_without_cuda_and_the_guests_kept_apart():
    peak = peak_memory.peak_memory()
    assert peak["gpu_bytes"] == 0 and "guest_gpu_bytes" not in peak and peak["host_bytes"] > 0
    assert peak_memory.peak_memory(4096)["guest_gpu_bytes"] == 4096


def test_io_bytes_is_the_largest_calls_inputs_and_outputs():
    import torch
    peak_memory.reset()
    assert "io_bytes" not in peak_memory.peak_memory()
    peak_memory.note_call([torch.zeros(100), torch.zeros(10, dtype=torch.int8)], [torch.zeros(50)])
    peak_memory.note_call([torch.zeros(4)], [torch.zeros(4)])  # a smaller call leaves it
    assert peak_memory.peak_memory()["io_bytes"] == 400 + 10 + 200
    peak_memory.reset()
    assert "io_bytes" not in peak_memory.peak_memory()


def test_shared_device_buffers_count_at_their_peak_until_reset():
    peak_memory.shared_device_allocated(100)
    peak_memory.shared_device_allocated(50)
    peak_memory.shared_device_released(100)
    assert peak_memory._shared_device_bytes == {"live": 50, "peak": 150}
    peak_memory.reset()  # a new job starts from what is still held
    assert peak_memory._shared_device_bytes == {"live": 50, "peak": 50}
    peak_memory.shared_device_released(50)
    peak_memory.reset()
    assert peak_memory._shared_device_bytes == {"live": 0, "peak": 0}
