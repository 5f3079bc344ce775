"""A call's outputs in sealed memfds: what the warden accepts, across a real process boundary."""

import fcntl
import mmap
import os

import pytest
import torch

import runner_harness  # noqa: F401  (puts runner/ on sys.path)
from keval_runner.guest.guest_channel import Channel
from keval_runner.handoff.sealed_outputs import SEALS, open_sealed_outputs, seal_outputs

FLOAT_3x4 = [{"dtype": "float32", "shape": [3, 4]}]


def outputs():
    return [torch.randn(3, 4), torch.empty(0, 5), torch.tensor(2.5), torch.arange(10)[::2],
            torch.randn(2, 3, dtype=torch.float64).t()]


def test_outputs_sent_by_another_process_arrive_unchanged_and_owning_their_memory():
    warden, guest = Channel.pair()
    sent = outputs()
    pid = os.fork()
    if pid == 0:  # the guest
        warden.close()
        described, fds = seal_outputs(sent)
        guest.send({"outputs": described}, fds=fds)
        os._exit(0)
    guest.close()
    header, payload, fds = warden.receive()
    os.waitpid(pid, 0)
    try:
        got = open_sealed_outputs(header["outputs"], fds)
    finally:
        for fd in fds:
            os.close(fd)
    assert len(payload) == 0 and len(fds) == 4  # the empty output needs no memory
    assert all(torch.equal(a, b) and a.dtype == b.dtype for a, b in zip(sent, got))
    assert all(t.untyped_storage().nbytes() == t.numel() * t.element_size() for t in got)


def test_writing_a_received_output_leaves_the_sealed_memory_as_it_was():
    described, fds = seal_outputs([torch.zeros(3, 4)])
    first = open_sealed_outputs(described, fds)[0]
    first.add_(1)  # e.g. an in-place comparison helper
    assert torch.equal(open_sealed_outputs(described, fds)[0], torch.zeros(3, 4))
    os.close(fds[0])


def unsealed(nbytes, seals=0):
    fd = os.memfd_create("test", os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, nbytes)
    if seals:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    return fd


@pytest.mark.parametrize("make, why", [
    (lambda: unsealed(48), "not sealed against change"),
    (lambda: unsealed(48, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW), "not sealed against change"),
    (lambda: unsealed(64, SEALS), "holds 64 bytes, its description 48"),
    (lambda: os.pipe()[0], "not sealed memory"),
])
def test_memory_a_guest_could_still_change_or_that_lies_about_its_size_is_refused(make, why):
    fd = make()
    try:
        with pytest.raises(ValueError, match=why):
            open_sealed_outputs(FLOAT_3x4, [fd])
    finally:
        os.close(fd)


def test_a_guest_holding_a_writable_mapping_cannot_seal_it():
    fd = unsealed(48)
    mapped = mmap.mmap(fd, 48)
    with pytest.raises(OSError):
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)
    mapped.close()
    os.close(fd)


def test_descriptor_counts_and_descriptions_must_match():
    described, fds = seal_outputs([torch.ones(3, 4)])
    try:
        with pytest.raises(ValueError, match="1 output descriptors for 2 non-empty outputs"):
            open_sealed_outputs(FLOAT_3x4 * 2, fds)
        with pytest.raises(ValueError, match="bad output description"):
            open_sealed_outputs([{"dtype": "float32", "shape": [-1]}], fds)
        with pytest.raises(ValueError, match="unknown dtype"):
            open_sealed_outputs([{"dtype": "os.system", "shape": [3, 4]}], fds)
    finally:
        os.close(fds[0])


def test_outputs_beyond_what_a_call_may_return_are_refused_before_any_is_mapped():
    # 64 outputs of 40 MiB each from one call: the warden would map and save 2.6 GB
    described = [{"dtype": "uint8", "shape": [40 << 20]}] * 64
    with pytest.raises(ValueError, match="more than the"):
        open_sealed_outputs(described, [], limit_bytes=256 << 20)
    described, fds = seal_outputs([torch.zeros(3, 4)])
    try:
        assert open_sealed_outputs(described, fds, limit_bytes=48)[0].shape == (3, 4)
        with pytest.raises(ValueError, match="48 bytes of outputs"):
            open_sealed_outputs(described, fds, limit_bytes=47)
    finally:
        for fd in fds:
            os.close(fd)
