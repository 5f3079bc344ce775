"""The warden's CUDA clock on a real GPU (skipped without one): its copies are kernels that copy
every dtype and layout exactly; a stream waits for a word another stream writes; a stream waits
for a host word the host sets and writes one the host reads; and another process's stream does
both through its own mapping of the same page (clock_words.py). Waits are polled with a deadline
(a hung stream cannot be interrupted) and released on failure."""

import os
import subprocess
import sys
import time

import pytest
import torch

from keval_runner.device import stream_flags
from keval_runner.device.clock_words import DONE, GATE, ClockWords
from keval_runner.warden.warden_gpu_clock import copy_by_kernel

RUNNER = os.path.join(os.path.dirname(__file__), "..", "..", "runner")

pytestmark = [pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
              pytest.mark.timeout(120)]

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int8, torch.bool,
          torch.complex64, torch.float8_e4m3fn]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_copy_by_kernel_copies_every_bit_into_any_layout(dtype):
    raw = torch.randint(0, 256, (64, 48 * torch.empty(0, dtype=dtype).element_size()), dtype=torch.uint8,
                        device="cuda")
    value = raw.view(dtype)
    target = torch.empty(value.shape[1], value.shape[0], dtype=dtype, device="cuda").t()  # strided
    copy_by_kernel(target, value)
    assert torch.equal(target.view(torch.uint8) if dtype.itemsize == 1 else target.contiguous().view(torch.uint8),
                       value.contiguous().view(torch.uint8))


def test_a_stream_waits_for_the_word_another_stream_writes():
    words = torch.zeros(2, dtype=torch.int32, device="cuda")
    waiting, writing = torch.cuda.Stream(), torch.cuda.Stream()
    out = torch.zeros(1, device="cuda")
    stream_flags.wait_at_least(waiting, words.data_ptr(), 3)
    with torch.cuda.stream(waiting):
        out.fill_(1.0)
    torch.cuda._sleep(1_000_000)  # the default stream busy a while: the wait must still hold
    assert out.item() == 0.0 or not waiting.query()
    stream_flags.write(writing, words.data_ptr(), 3)
    waiting.synchronize()
    assert out.item() == 1.0


def _finished_within(stream, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not stream.query():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def test_a_stream_waits_for_the_host_word_and_writes_one_the_host_reads():
    torch.zeros(1, device="cuda")  # a current context to register with
    words = ClockWords()
    try:
        gate = words.register()
        stream = torch.cuda.Stream()
        out = torch.zeros(1, device="cuda")
        stream_flags.wait_at_least(stream, gate, 3)
        with torch.cuda.stream(stream):
            out.fill_(1.0)
        stream_flags.write(stream, gate + 4, 9)
        time.sleep(0.2)
        assert not stream.query() and words.read() == (0, 0), "the stream went on before the gate opened"
        words.set(GATE, 3)
        assert _finished_within(stream, 30), f"the stream never saw the host's store: {words.read()}"
        assert words.read() == (3, 9) and out.item() == 1.0
    finally:
        words.set(GATE, 0xFFFF)
        torch.cuda.synchronize()
        words.close()


# the timed process's side: its own mapping and context; a kernel behind the gate, then done
OTHER_SIDE = """
import sys, torch
from keval_runner.device import stream_flags
from keval_runner.device.clock_words import ClockWords
out = torch.zeros(1, device="cuda")
words = ClockWords(int(sys.argv[1]))
words.close_fd()
gate = words.register()
stream = torch.cuda.current_stream()
stream_flags.wait_at_least(stream, gate, 1)
out.fill_(5.0)
stream_flags.write(stream, gate + 4, int(out.item()))  # .item(): done is written after the kernel ran
print("ok", flush=True)
"""


def test_another_process_waits_behind_the_gate_and_writes_done_through_its_own_mapping():
    words = ClockWords()
    other = subprocess.Popen([sys.executable, "-c", OTHER_SIDE, str(words.fd)], pass_fds=[words.fd],
                             env={**os.environ, "PYTHONPATH": RUNNER}, stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(3)  # its stream is waiting by now, or its answer would not wait for the gate
        assert words.read() == (0, 0), "the other process wrote done before its gate opened"
        words.set(GATE, 1)
        deadline = time.monotonic() + 60
        while not words.reached(DONE, 5):
            assert other.poll() in (None, 0), "the other process failed"
            assert time.monotonic() < deadline, f"done never came from the other process: {words.read()}"
            time.sleep(0.001)
        assert other.wait(timeout=60) == 0
    finally:
        other.kill()
        words.close()


def test_the_calibration_call_launches_a_kernel_on_the_gpu():
    # a call of stream operations alone never makes the GPU switch to the timed process's
    # context, which every real call does (290 us against 16 us a round trip on an H100)
    from keval_runner.guest.guest_timed_call import null_call
    x = torch.zeros(1, device="cuda")
    out = null_call(x)
    assert out.is_cuda and out.data_ptr() != x.data_ptr()
