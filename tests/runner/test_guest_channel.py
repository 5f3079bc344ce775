"""The warden's channel to its guest, read as a hostile guest would write it: lengths it claims,
JSON it nests, frames it sends out of turn, faults it reports, and the way it dies."""

import os
import signal
import socket
import subprocess
import threading
import time
import tracemalloc

import pytest
import torch

import runner_harness  # noqa: F401  (puts runner/ on sys.path)
from runner_harness import case, of_type, only
from keval_runner.jobs import child
from keval_runner.sandbox import sandbox
from keval_runner.protocol.errors import DeviceError, describe
from keval_runner.guest.guest_channel import PREFIX, Channel, ChannelError, FrameError
from keval_runner.guest.guest_process import GuestGone, GuestMisbehaved, GuestProcess

pytestmark = pytest.mark.timeout(120)

READY = {"op": "ready", "sandbox": None}
REPLY = {"ok": True, "tampering": []}


def raw_frame(header: bytes, payload_bytes: int = 0) -> bytes:
    return PREFIX.pack(len(header), payload_bytes) + header


def channel_with_peer():
    """(the warden's channel, the guest's raw socket); the warden never waits more than 10 s."""
    warden, guest = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    warden.settimeout(10)
    return Channel(warden), guest


def peak_bytes_allocated(action) -> int:
    tracemalloc.start()
    try:
        action()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


# -- lengths and JSON ---------------------------------------------------------------------------

def test_a_huge_length_claim_is_refused_before_anything_is_allocated():
    warden, guest = channel_with_peer()
    guest.sendall(raw_frame(b"{}", payload_bytes=1 << 40))  # 1 TiB claimed, nothing sent

    def receive():
        with pytest.raises(FrameError, match="too large"):
            warden.receive()

    assert peak_bytes_allocated(receive) < 1 << 20


def test_a_claimed_length_costs_memory_only_as_its_bytes_arrive():
    warden, guest = channel_with_peer()
    guest.sendall(raw_frame(b"{}", payload_bytes=200 << 20) + b"x" * 1024)  # under the bound
    guest.close()  # ... and then nothing more

    def receive():
        with pytest.raises(ChannelError, match="mid-frame"):
            warden.receive()

    assert peak_bytes_allocated(receive) < 8 << 20


def test_a_payload_is_checked_against_the_bound_of_its_request():
    warden, guest = channel_with_peer()
    guest.sendall(raw_frame(b"{}", payload_bytes=4096) + b"\0" * 4096)
    with pytest.raises(FrameError, match="of at most 1024"):
        warden.receive(max_payload_bytes=1024)


@pytest.mark.parametrize("header", [
    b"[" * 20_000 + b"]" * 20_000,  # deeper than the interpreter's stack
    b'{"a":' * 40 + b"1" + b"}" * 40,  # parses, but past any header of the protocol
    b"{not json", b"\xff\xfe{}", b"[1, 2]", b'{"n": ' + b"9" * 5000 + b"}",
])
def test_anything_but_a_shallow_json_object_is_a_frame_error(header):
    warden, guest = channel_with_peer()
    guest.sendall(raw_frame(header))
    with pytest.raises(FrameError):
        warden.receive()


def test_frames_of_the_protocol_still_pass():
    warden, guest = Channel.pair()
    guest.send({"ok": True, "tampering": [], "outputs": [{"dtype": "float32", "shape": [2, 3]}],
                "profile": {"kernels": [{"name": "k", "time_us": 1.0}]}}, payload=[b"abc", b"de"])
    header, payload, fds = warden.receive()
    assert header["outputs"][0]["shape"] == [2, 3] and bytes(payload) == b"abcde" and fds == []


# -- the state machine --------------------------------------------------------------------------

@pytest.fixture
def sleeper():
    """A process standing in for the guest's pid (the warden kills and reaps it)."""
    process = subprocess.Popen(["sleep", "60"])
    yield process.pid
    try:
        process.kill()
        process.wait(timeout=10)
    except (ProcessLookupError, ChildProcessError, subprocess.TimeoutExpired):
        pass


def guest_that_sends(*headers, pid):
    """A GuestProcess whose guest has already written these frames into the channel."""
    warden, guest = Channel.pair()
    warden.sock.settimeout(10)
    for header in headers:
        guest.send(header)
    process = GuestProcess(pid, warden)
    process._guest_end = guest  # kept open: the guest lives on
    return process


@pytest.mark.parametrize("forged", [
    {"op": "device_lost", "kind": "DeviceLost", "message": "CUDA error: out of memory"},
    {"op": "sandbox_failed", "message": "the uid switch failed"},
    {"op": "hello", "ok": True, "tampering": []},
])
def test_a_frame_with_an_op_after_ready_is_misbehaving(forged, sleeper):
    guest = guest_that_sends(READY, forged, pid=sleeper)
    guest.ready()
    with pytest.raises(GuestMisbehaved, match="out of turn"):
        guest.ask({"op": "load"})


def test_a_second_frame_for_one_request_is_misbehaving(sleeper):
    guest = guest_that_sends(READY, REPLY, REPLY, pid=sleeper)
    guest.ready()
    with pytest.raises(GuestMisbehaved, match="more than one frame"):
        guest.ask({"op": "drop", "key": "k"})


def test_replies_one_per_request_are_accepted(sleeper):
    """A guest that answers each request once, after reading it (a thread that blocks on the
    channel: no timing involved)."""
    warden, guest = Channel.pair()
    warden.sock.settimeout(10)
    replies = [REPLY, {**REPLY, "ok": False, "error": {"message": "x"}}]

    def serve():
        guest.send(READY)
        for reply in replies:
            guest.receive()
            guest.send(reply)
        guest.close()

    server = threading.Thread(target=serve)
    server.start()
    process = GuestProcess(sleeper, warden)
    assert process.ready() is None
    assert process.ask({"op": "drop", "key": "k"})[0]["ok"] is True
    assert process.ask({"op": "drop", "key": "k"})[0]["ok"] is False
    server.join(timeout=10)
    with pytest.raises(GuestGone):
        process.ask({"op": "drop", "key": "k"})


class Writer:
    def __init__(self):
        self.sent = []

    def send(self, type_, **fields):
        self.sent.append({"type": type_, **fields})


def run_warden_with(monkeypatch, guest):
    """child.run_with_guest with this guest; the job asks it to load the submission."""
    monkeypatch.setattr(child.GuestProcess, "start", classmethod(lambda cls, *a, **k: guest))
    monkeypatch.setattr(child, "device_environment", lambda request: None)
    monkeypatch.setattr(child, "prepare_device", lambda request: None)
    monkeypatch.setattr(child, "dispatch", lambda request, writer, guest=None, device_ready=False, baselines=None:
                        guest.ask({"op": "load"}))
    writer = Writer()
    result = child.run_with_guest({"op": "run", "kind": "candidate", "device": "cpu"}, writer, -1)
    return result, writer.sent


@pytest.mark.parametrize("forged", [
    {"op": "device_lost", "kind": "DeviceLost", "message": "CUDA error: out of memory"},
    {"op": "sandbox_failed", "message": "the uid switch failed"},
])
def test_a_fault_the_guest_reports_after_ready_is_tampering_not_a_harness_fault(forged, monkeypatch, sleeper):
    result, sent = run_warden_with(monkeypatch, guest_that_sends(READY, forged, pid=sleeper))
    assert result is None
    assert [m["type"] for m in sent] == ["tampering"]
    assert sent[0]["stage"] == "protocol" and "out of turn" in sent[0]["names"][0]


def test_a_sandbox_failure_before_ready_stays_a_harness_fault(monkeypatch, sleeper):
    guest = guest_that_sends({"op": "sandbox_failed", "message": "the uid switch failed"}, pid=sleeper)
    with pytest.raises(sandbox.SandboxError, match="uid switch"):
        run_warden_with(monkeypatch, guest)


def test_a_device_the_guest_could_not_start_before_ready_is_a_device_error(monkeypatch, sleeper):
    guest = guest_that_sends({"op": "device_failed", "error_kind": "OutOfMemoryError",
                              "message": "CUDA error: out of memory", "out_of_memory": True}, pid=sleeper)
    with pytest.raises(DeviceError) as raised:
        run_warden_with(monkeypatch, guest)
    assert raised.value.kind == "OutOfMemoryError" and raised.value.out_of_memory


# -- out of memory: only the warden's own ----------------------------------------------------

def test_only_an_out_of_memory_exception_is_described_as_one():
    assert describe(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 6.00 GiB"))["out_of_memory"]
    assert describe(RuntimeError("CUDA error: out of memory"))["out_of_memory"]
    assert "out_of_memory" not in describe(RuntimeError("shape mismatch"))
    assert "out_of_memory" not in describe(ValueError("CUDA out of memory"))  # not torch's


def test_the_drivers_refusal_of_shared_memory_is_an_out_of_memory():
    from keval_runner.device.device_sharing import SharingError, _check
    with pytest.raises(SharingError) as refused:
        _check(2, "cuMemCreate")  # CUDA_ERROR_OUT_OF_MEMORY: another slot's job filled the device
    assert describe(refused.value)["out_of_memory"]
    with pytest.raises(SharingError) as invalid:
        _check(1, "cuMemCreate")
    assert "out_of_memory" not in describe(invalid.value)


class ErrorWriter:
    def __init__(self):
        self.errors = []

    def error(self, stage, error_kind, message, **fields):
        self.errors.append({"stage": stage, "error_kind": error_kind, **fields})


def forwarded_guest_error(device: str, error: dict) -> dict:
    from keval_runner.jobs.candidate_job import CandidateJob

    job = CandidateJob.__new__(CandidateJob)
    job.writer, job.device = ErrorWriter(), torch.device(device)
    job.guest_error("call", {"ok": False, "error": error})
    return job.writer.errors[0]


OOM_SAID = {"error_kind": "OutOfMemoryError", "message": "CUDA out of memory", "out_of_memory": True}


def test_the_guests_word_on_out_of_memory_is_never_forwarded():
    error = forwarded_guest_error("cpu", OOM_SAID)
    assert error["error_kind"] == "OutOfMemoryError" and "out_of_memory" not in error


@pytest.mark.parametrize("free_gib,error_kind,share", [
    (100, "OutOfMemoryError", 100 / 139),  # the device as empty as the guest found it: only words
    (3, "OutOfMemoryError", 3 / 139),      # nearly full, as the driver tells the warden
    (3, "RuntimeError", None),             # full, but the call failed for another reason
])
def test_a_guest_out_of_memory_carries_the_free_share_the_driver_shows(free_gib, error_kind, share, monkeypatch):
    # the controller decides from the share whether the device was crowded (device_memory.cc)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (free_gib << 30, 139 << 30))
    error = forwarded_guest_error("cuda", {**OOM_SAID, "error_kind": error_kind})
    assert "out_of_memory" not in error
    if share is None:
        assert error.get("device_free_share") is None
    else:
        assert error["device_free_share"] == pytest.approx(share)


# -- the guest's end, mirrored -------------------------------------------------------------------

def test_a_guest_killed_by_sigkill_ends_its_warden_by_sigkill():
    warden = os.fork()
    if warden == 0:  # the warden: mirrors a guest that the OOM killer (here: itself) killed
        try:
            guest = os.fork()
            if guest == 0:
                os.kill(os.getpid(), signal.SIGKILL)
                os._exit(1)
            GuestProcess(guest, None).mirror_exit()
        except BaseException:  # noqa: BLE001 (a traceback instead of the guest's end)
            pass
        os._exit(99)
    deadline = time.monotonic() + 30
    while True:
        pid, status = os.waitpid(warden, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.kill(warden, signal.SIGKILL)
            os.waitpid(warden, 0)
            pytest.fail("the warden did not end")
        time.sleep(0.01)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status


# -- through the real runner -------------------------------------------------------------------

FORGER = '''
import os, stat, struct
def vector_add(x, y):
    header = {header!r}
    for fd in range(3, 256):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.write(fd, struct.pack("!QQ", len(header), {payload}) + header)
        except OSError:
            pass
    return x + y
'''


@pytest.mark.parametrize("header,payload", [
    (b"[" * 20_000 + b"]" * 20_000, 0),
    (b'{"op": "device_lost", "kind": "DeviceLost", "message": "CUDA error: out of memory"}', 0),
    (b'{"ok": true, "tampering": []}', 1 << 40),
])
def test_a_guest_forging_frames_gets_tampering_from_the_real_warden(header, payload, runner, jobs, tmp_path):
    path = tmp_path / "forger.py"
    path.write_text(FORGER.format(header=header, payload=payload))
    messages = runner.run(jobs.candidate(str(path), cases=[case(seeds=[1])]))
    tampering = only(messages, "tampering")
    assert tampering["stage"] == "protocol" and "guest protocol" in tampering["names"][0]
    assert not [e for e in of_type(messages, "error") if e["stage"] in ("device", "runner")]
    assert len(of_type(messages, "done")) == 1
