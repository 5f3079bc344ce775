"""The warden's clock words (clock_words.py) on the CPU: one page two real processes map through a
passed descriptor, each seeing the other's plain stores; comparisons that wrap as the streams'
do; a descriptor of the wrong size refused. Their CUDA registration is checked on the GPU
(test_warden_gpu_clock_gpu.py)."""

import os
import subprocess
import sys
import time

import pytest

from keval_runner.device.clock_words import BYTES, DONE, GATE, ClockWords

pytestmark = pytest.mark.timeout(120)

RUNNER = os.path.join(os.path.dirname(__file__), "..", "..", "runner")

# the timed process's side: wait for the gate, answer with done = gate + 1000
OTHER_SIDE = """
import sys, time
from keval_runner.device.clock_words import ClockWords, DONE, GATE
words = ClockWords(int(sys.argv[1]))
words.close_fd()
deadline = time.monotonic() + 60
while not words.reached(GATE, 7):
    if time.monotonic() > deadline:
        sys.exit("the gate never opened")
    time.sleep(0.001)
words.set(DONE, words.read()[0] + 1000)
"""


def test_two_processes_see_each_others_stores_through_the_passed_descriptor():
    words = ClockWords()
    other = subprocess.Popen([sys.executable, "-c", OTHER_SIDE, str(words.fd)], pass_fds=[words.fd],
                             env={**os.environ, "PYTHONPATH": RUNNER})
    try:
        words.set(GATE, 7)
        deadline = time.monotonic() + 60
        while not words.reached(DONE, 1007):
            assert other.poll() in (None, 0), "the other process failed"
            assert time.monotonic() < deadline, f"done never came: {words.read()}"
            time.sleep(0.001)
        assert words.read() == (7, 1007)
        assert other.wait(timeout=60) == 0
    finally:
        other.kill()
        words.close()


def test_reached_compares_as_the_streams_do_wrapping_at_32_bits():
    words = ClockWords()
    try:
        words.set(DONE, 5)
        assert words.reached(DONE, 5) and words.reached(DONE, 4) and not words.reached(DONE, 6)
        words.set(DONE, 2)  # wrapped past 2**32
        assert words.reached(DONE, 0xFFFFFFFF)
        assert not words.reached(DONE, 3)
        words.set(GATE, -1)
        assert words.read()[0] == 0xFFFFFFFF
    finally:
        words.close()


def test_the_gate_request_passes_the_page_and_nothing_else():
    words = ClockWords()
    try:
        header, fds = words.gate_request()
        assert header == {"op": "gate", "bytes": BYTES} and fds == [words.fd]
        assert os.fstat(words.fd).st_size == BYTES
    finally:
        words.close()


def test_a_descriptor_smaller_than_a_page_is_refused_with_its_size():
    fd = os.memfd_create("short")
    os.ftruncate(fd, 8)
    try:
        with pytest.raises(ValueError, match="8 bytes"):
            ClockWords(fd)
    finally:
        os.close(fd)
