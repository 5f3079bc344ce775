"""A job's peak memory (peak_memory.py): the host figure follows what the process and its
reaped children touched, the GPU figure is 0 where CUDA never started, and a guest's figure is
kept apart. Each host check runs in a fresh interpreter, so no earlier test's peak hides it."""
import json
import pathlib
import subprocess
import sys

from keval_runner import peak_memory

RUNNER = str(pathlib.Path(__file__).resolve().parents[2] / "runner")


def fresh(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", "import json, os, subprocess, sys\n"
                          "from keval_runner import peak_memory\n" + code],
                         check=True, capture_output=True, text=True, env={"PYTHONPATH": RUNNER})
    return json.loads(out.stdout)


def test_the_host_peak_grows_with_what_the_process_touches():
    seen = fresh("before = peak_memory.host_bytes()\n"
                 "held = bytearray(os.urandom(1)) * (256 << 20)\n"
                 "print(json.dumps({'before': before, 'after': peak_memory.host_bytes()}))")
    assert seen["before"] < 200 << 20 and seen["after"] >= seen["before"] + (200 << 20)


def test_the_host_peak_counts_a_reaped_child_larger_than_the_process():
    seen = fresh("subprocess.run([sys.executable, '-c', 'b = bytearray(1 << 30); b[::4096] = b\"x\" * (1 << 18)'],"
                 " check=True)\n"
                 "import resource\n"
                 "print(json.dumps({'own': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,"
                 " 'peak': peak_memory.host_bytes()}))")
    assert seen["own"] < 200 << 20 and seen["peak"] >= 1 << 30


def test_no_gpu_figure_without_cuda_and_the_guests_kept_apart():
    peak = peak_memory.peak_memory()
    assert peak["gpu_bytes"] == 0 and "guest_gpu_bytes" not in peak and peak["host_bytes"] > 0
    assert peak_memory.peak_memory(4096)["guest_gpu_bytes"] == 4096
