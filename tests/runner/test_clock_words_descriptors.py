"""The clock words' descriptor a guest receives stays its receiver's to close: the guest and the
baselines' process close every descriptor of a request after its handler, so a handler that
closed one too made that second close fail (EBADF ended the baselines' process on an H100) or,
once the number was reused, close someone else's descriptor."""

import os

from keval_runner.device import clock_words
from keval_runner.guest.guest_timed_call import TimedCalls


def test_open_gate_leaves_the_received_descriptor_open(monkeypatch):
    # register() maps the page into a CUDA context; the descriptor's fate is what is tested
    monkeypatch.setattr(clock_words.ClockWords, "register", lambda self: 4096)
    warden_side = clock_words.ClockWords()
    received = os.dup(warden_side.fd)  # as recvmsg hands it over
    calls = TimedCalls(opener=None)
    try:
        calls.open_gate([received])
        assert os.fstat(received).st_size >= clock_words.BYTES  # still open: the caller's to close
        os.close(received)
        warden_side.words[clock_words.GATE] = 7  # the guest's mapping sees the warden's store
        assert calls.words.read()[0] == 7
    finally:
        os.close(warden_side.fd)  # the mappings go with their objects
