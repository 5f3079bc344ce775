"""The pieces that let the warden time the candidate from outside its process (CPU mode): the
guest stopped and resumed, its memory read while stopped, its processes counted by cgroup, and
what a timed call's answer may claim of its outputs."""

import ctypes
import mmap
import os
import signal
import struct
import time

import pytest
import torch

from keval_runner.guest import guest_stop
from keval_runner.sandbox.guest_cgroup import GuestCgroup
from keval_runner.handoff.guest_memory import GuestMemoryUnreadable, read_into
from keval_runner.warden.warden_timed_candidate import read_output

pytestmark = pytest.mark.timeout(60)


def _child(body):
    """Forks a child running body(write_end); returns (pid, read_end)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            body(write_end)
        finally:
            os._exit(0)
    os.close(write_end)
    return pid, read_end


def _read_line(fd) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 64)
        assert chunk, "the child closed its pipe"
        data += chunk
    return data.strip()


def _end(pid):
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def test_the_warden_reads_a_stopped_childs_memory_where_it_says():
    def body(out):
        data = ctypes.create_string_buffer(b"keval timed output bytes", 64)
        os.write(out, f"{ctypes.addressof(data)}\n".encode())
        while True:
            time.sleep(1)

    pid, fd = _child(body)
    try:
        address = int(_read_line(fd))
        guest_stop.stop(pid)
        buffer = bytearray(24)
        read_into(pid, address, buffer)
        assert bytes(buffer) == b"keval timed output bytes"
        with pytest.raises(GuestMemoryUnreadable):
            read_into(pid, 4096, bytearray(8))  # nothing is mapped at the first page
        with pytest.raises(GuestMemoryUnreadable):
            read_into(pid, 0, bytearray(8))
        guest_stop.resume(pid)
    finally:
        _end(pid)


def test_a_stopped_guest_runs_none_of_its_threads():
    counter = mmap.mmap(-1, 8)  # shared with the child: its thread counts here

    def body(out):
        import threading

        def spin():
            n = 0
            while True:
                n += 1
                counter[:8] = struct.pack("q", n)

        threading.Thread(target=spin, daemon=True).start()
        os.write(out, b"started\n")
        while True:
            time.sleep(1)

    pid, fd = _child(body)
    try:
        _read_line(fd)
        while struct.unpack("q", counter[:8])[0] == 0:  # its thread has counted at least once
            time.sleep(0.01)
        guest_stop.stop(pid)
        first = struct.unpack("q", counter[:8])[0]
        time.sleep(0.2)
        assert struct.unpack("q", counter[:8])[0] == first
        guest_stop.resume(pid)
        while struct.unpack("q", counter[:8])[0] == first:  # it runs again once resumed
            time.sleep(0.01)
    finally:
        _end(pid)


def test_a_guest_that_ended_instead_of_stopping_says_how():
    pid, fd = _child(lambda out: os._exit(7))
    os.read(fd, 1)  # its end closed the pipe
    with pytest.raises(guest_stop.GuestDied) as died:
        guest_stop.stop(pid)
    assert os.WIFEXITED(died.value.status) and os.WEXITSTATUS(died.value.status) == 7


def test_the_cgroup_sees_and_ends_a_process_that_left_the_guests_session():
    cgroup = GuestCgroup.create(str(os.getpid()))  # a live pid: no sweep of ended wardens touches it
    if cgroup is None:
        assert os.geteuid() != 0, "root on this machine should get a freezer cgroup"
        pytest.skip("no writable cgroup without root")  # CI runs as root: this skip never happens there

    go_read, go_write = os.pipe()

    def body(out):
        os.read(go_read, 1)  # forks only once it is in the cgroup
        if os.fork() == 0:  # a daemon: its own session
            os.setsid()
            os.write(out, f"{os.getpid()}\n".encode())
            while True:
                time.sleep(1)
        while True:
            time.sleep(1)

    pid, fd = _child(body)
    assert cgroup.add(pid)
    os.write(go_write, b"g")
    daemon = int(_read_line(fd))
    try:
        assert cgroup.others(pid) == [daemon]
        assert cgroup.freeze()
        cgroup.thaw()
        cgroup.kill_all()
        os.waitpid(pid, 0)
        assert not os.path.exists(f"/proc/{daemon}") or _state(daemon) in ("Z", "X")
        assert not os.path.isdir(cgroup.path)
    finally:
        _end(pid)
        try:
            os.kill(daemon, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_an_answer_that_does_not_fit_the_reference_output_is_not_read():
    like = torch.zeros(4, 5)
    good = {"address": 4096, "dtype": "float32", "shape": [4, 5], "stride": [5, 1], "device": "cpu"}
    for bad in ({**good, "dtype": "float16"}, {**good, "shape": [5, 4]}, {**good, "stride": [1 << 40, 1]},
                {**good, "stride": [-5, 1]}, {**good, "device": "cuda"}, {**good, "address": "x"},
                {"shape": [4, 5]}):
        assert read_output(os.getpid(), bad, like, 2) is None, bad
    own = torch.arange(20, dtype=torch.float32).reshape(4, 5)
    read = read_output(os.getpid(), {**good, "address": own.data_ptr()}, like, 2)
    assert torch.equal(read, own)
    assert read_output(os.getpid(), good, like, 2) is None  # the first page is never mapped


def test_an_output_spanning_more_storage_than_the_request_allows_is_not_read():
    like = torch.zeros(4, 5)
    wide = torch.arange(60, dtype=torch.float32).reshape(4, 15)  # rows 15 apart: spans 50 elements
    spread = {"address": wide.data_ptr(), "dtype": "float32", "shape": [4, 5], "stride": [15, 1], "device": "cpu"}
    assert read_output(os.getpid(), spread, like, 2) is None  # 50 > 2 x 20
    read = read_output(os.getpid(), spread, like, 3)  # the controller's factor, not the runner's
    assert torch.equal(read, wide[:, :5])


def test_a_parked_process_runs_no_more_until_released():
    cgroup = GuestCgroup.create(str(os.getpid()))  # a live pid: no sweep thaws it
    if cgroup is None:
        assert os.geteuid() != 0, "root on this machine should get a freezer cgroup"
        pytest.skip("no writable cgroup without root")  # CI runs as root: this skip never happens there
    counter = mmap.mmap(-1, 8)

    def body(out):
        os.write(out, b"started\n")
        n = 0
        while True:
            n += 1
            counter[:8] = struct.pack("q", n)

    pid, fd = _child(body)
    try:
        assert cgroup.add(pid)
        _read_line(fd)
        cgroup.park(cgroup.others(-1))  # every process in it: here the one child
        assert cgroup.pids() == []
        first = struct.unpack("q", counter[:8])[0]
        time.sleep(0.2)
        assert struct.unpack("q", counter[:8])[0] == first  # frozen where it was parked
        cgroup.release_parked()
        while struct.unpack("q", counter[:8])[0] == first:  # it runs again once released
            time.sleep(0.01)
    finally:
        _end(pid)
        cgroup.release_parked()
        cgroup.remove()
    assert not os.path.isdir(cgroup.parked_path) and not os.path.isdir(cgroup.path)


def _contender(gpu: bool, slot_copy: float):
    from keval_runner.warden.warden_timed_candidate import WardenTimedContender
    contender = WardenTimedContender.__new__(WardenTimedContender)  # no process: only its slot figures
    contender.gpu, contender.slot_copy_ms = gpu, slot_copy
    contender.slot_like = [torch.empty(3, 5, dtype=torch.float16)] if gpu else []
    return contender


def test_every_side_of_a_case_gets_one_slot_copy_figure_taken_again():
    from keval_runner.warden.warden_timed_candidate import retime_slot_copies
    # figures taken as the case was prepared, one inflated by another slot's work
    candidate, golden, cpu_side = _contender(True, 0.170), _contender(True, 0.178), _contender(False, 0.0)
    timed = []
    retime_slot_copies([candidate, golden, cpu_side, object()],
                       timer=lambda slots, calls: timed.append((slots[0].shape, calls)) or 0.1725)
    assert timed == [(torch.Size([3, 5]), 21)]  # once for the case, on its reference's layout
    assert candidate.slot_copy_ms == golden.slot_copy_ms == 0.1725
    assert cpu_side.slot_copy_ms == 0.0  # nothing copied on the CPU


def test_a_case_without_gpu_slots_times_no_copy():
    from keval_runner.warden.warden_timed_candidate import retime_slot_copies
    retime_slot_copies([_contender(False, 0.0)], timer=lambda slots, calls: pytest.fail("timed a copy on the CPU"))
