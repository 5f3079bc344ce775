"""When the warden opens its CUDA gate (gpu_timed_guest.py), checked on the CPU with a stand-in
clock and a real process across a real channel: after a prompt answer (the call is enqueued
behind the gate, so the clock starts with its first kernel), before a late one (a call that
waits for the GPU could never answer), and before every answer once a key answered late twice
in a row; a failed call's gate is opened with no clock."""

import os
import time

import pytest
import torch

from keval_runner.warden.gpu_timed_guest import GpuTimedGuest
from keval_runner.guest.guest_channel import Channel
from keval_runner.guest.guest_process import GuestProcess
from keval_runner.warden.warden_gpu_clock import GATE_WAIT_S

pytestmark = pytest.mark.timeout(120)


class Clock:
    """The clock's side effects as a log of what was enqueued, and when."""

    def __init__(self, log):
        self.log, self.n = log, 0

    def gate_request(self):
        return {"op": "gate", "bytes": 4096}, []

    def next_number(self):
        self.n += 1
        return self.n

    def open(self, n, before=None, flush=False):
        self.log.append(("open", n))

    def release(self, n):
        self.log.append(("release", n))

    def close(self, n, after=None):
        self.log.append(("close", n))

    def elapsed_ms(self, n):
        return 0.5


class LoggedGuest(GuestProcess):
    def __init__(self, pid, channel, log):
        super().__init__(pid, channel)
        self.log = log

    def reply_to(self, op, keep_fds=False, max_payload_bytes=None):
        reply = super().reply_to(op, keep_fds, max_payload_bytes)
        self.log.append(("reply", op))
        return reply


def _serve(channel):
    """A timed process: `slow` keys answer after twice the gate's wait, `alternate` keys on
    every other call, `fail` keys fail."""
    channel.send({"op": "ready", "sandbox": None})
    calls = {}
    while True:
        header, _, _ = channel.receive()
        if header.get("op") == "end":
            return
        key = str(header.get("key", ""))
        calls[key] = calls.get(key, 0) + 1
        if key.startswith("slow") or (key.startswith("alternate") and calls[key] % 2):
            time.sleep(2 * GATE_WAIT_S)
        channel.send({"ok": not key.startswith("fail"), "tampering": []})


@pytest.fixture
def timed():
    warden_end, own_end = Channel.pair()
    pid = os.fork()
    if pid == 0:
        warden_end.close()
        try:
            _serve(own_end)
        finally:
            os._exit(0)
    own_end.close()
    log = []
    guest = LoggedGuest(pid, warden_end, log)
    guest.ready()
    timed = GpuTimedGuest(guest, device=None, settings={}, clock=Clock(log))
    yield timed, log
    timed.resume()
    guest.channel.send({"op": "end"})
    os.waitpid(pid, 0)


def _one(timed, log, key):
    log.clear()
    reply, ms = timed.round_trip(key)
    return reply, ms, [event for event, _ in log]


def test_a_prompt_answer_opens_the_gate_after_it(timed):
    timed, log = timed
    reply, ms, events = _one(timed, log, "fast")
    assert reply["ok"] and ms == 0.5
    assert events == ["reply", "open", "close"]
    assert timed.stopped  # nothing of the process runs while its call is clocked


def test_a_late_answer_opens_the_gate_first_and_twice_in_a_row_for_good(timed):
    timed, log = timed
    assert _one(timed, log, "slow")[2] == ["open", "reply", "close"]
    assert not timed.opens_first("slow")
    assert _one(timed, log, "slow")[2] == ["open", "reply", "close"]
    assert timed.opens_first("slow")
    assert not timed.opens_first("fast")
    # from now on without waiting for the answer first
    start = time.monotonic()
    assert _one(timed, log, "slow")[2] == ["open", "reply", "close"]
    assert time.monotonic() - start >= 2 * GATE_WAIT_S  # the call itself still takes its time


def test_late_answers_between_prompt_ones_are_forgiven(timed):
    timed, log = timed
    assert [_one(timed, log, "alternate")[2] for _ in range(3)] == [
        ["open", "reply", "close"], ["reply", "open", "close"], ["open", "reply", "close"]]
    assert not timed.opens_first("alternate")


def test_a_failed_call_gets_its_gate_opened_without_a_clock(timed):
    timed, log = timed
    reply, ms, events = _one(timed, log, "fail")
    assert not reply["ok"] and ms is None
    assert events == ["reply", "release"]


def test_the_calibration_call_on_the_cpu_does_no_work():
    from keval_runner.guest.guest_timed_call import null_call
    x = torch.zeros(3)
    assert null_call(x) is x


class StuckClock(Clock):
    """A gate through which no answer ever comes (as the warden's clock sees a device whose
    contexts never hand the GPU over)."""
    device, gate_by, done_wait_s = "cpu", "stream", 120.0

    def close(self, n, after=None):
        from keval_runner.guest.guest_process import GuestMisbehaved
        self.log.append(("close_wait", self.done_wait_s))
        raise GuestMisbehaved(f"a timed call's end (done {n}) never came")


def test_a_gate_that_never_answers_the_calibration_is_the_devices_fault_not_the_submissions(timed):
    from keval_runner.protocol.errors import DeviceError
    from keval_runner.warden.gpu_timed_guest import CALIBRATION_WAIT_S

    timed, log = timed
    timed.clock = StuckClock(log)
    with pytest.raises(DeviceError, match="KEVAL_CUDA_CLOCK=guest") as raised:
        timed.calibrate(calls=3)
    assert "stream gate" in str(raised.value)
    assert ("close_wait", CALIBRATION_WAIT_S) in log  # a short wait before the submission loads
    assert timed.clock.done_wait_s == 120.0  # the timed calls' own wait given back
