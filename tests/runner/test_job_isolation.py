"""A job leaves nothing for the next one of its uid: its trees are removed whatever they hold
(tree_by_descriptor.py), its threads die even when their leader has exited
(leftover_processes.py), and the places every uid may write are its own (private_tmp.py,
read_only_mounts.py). Each scenario runs in a forked child, so nothing of it touches pytest's
process (a reaper there would reap the harness's runners too)."""

import ctypes
import os
import platform
import shutil
import socket
import stat
import tempfile
import time
import warnings

import pytest

from leased_uids import uid_for
from keval_runner.sandbox import leftover_processes, private_tmp, sandbox, tree_by_descriptor

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="needs root (a second uid, mounts)")
WAIT_S = 60.0  # generous: CI runs on two busy cores


def _in_child(test) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = test()
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _deep_tree(top: str, levels: int = 300, name: str = "d" * 20) -> None:
    """A chain of folders far past PATH_MAX (300 x 21 bytes), a file at every level, every 50th
    folder chmod 000: no path string reaches its bottom."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(levels):
            os.mkdir(name, dir_fd=fd)
            leaf = os.open("file\nwith a newline", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd)
            os.close(leaf)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        for _ in range(levels):  # back up, chmod'ing on the way
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = parent
            if _ % 50 == 0:
                os.chmod(name, 0, dir_fd=fd)
    finally:
        os.close(fd)
    assert len(top) + levels * (len(name) + 1) > os.pathconf("/", "PC_PATH_MAX")


def test_empty_folder_removes_a_tree_past_path_max_with_a_chmod_000_folder(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    _deep_tree(str(cache))
    os.symlink("/etc", cache / "link_out")  # removed, never followed
    with pytest.raises(OSError, match="too long"):
        os.lstat(os.path.join(cache, *["d" * 20] * 300))  # no path string reaches its bottom
    assert tree_by_descriptor.empty_folder(str(cache)) > 300
    assert os.listdir(cache) == [] and os.path.isdir("/etc/passwd") is False and os.path.exists("/etc/passwd")


@needs_root
def test_the_uid_itself_can_remove_its_chmod_000_tree():
    """Without root's override of permissions (a run without root), the walk fixes them."""
    folder = tempfile.mkdtemp(prefix="keval-isolation-")
    os.chmod(folder, 0o755)  # the test uid must traverse it
    cache = os.path.join(folder, "cache")
    os.mkdir(cache)
    os.chown(cache, uid_for("job_isolation"), uid_for("job_isolation"))

    def test():
        os.setgid(uid_for("job_isolation"))
        os.setuid(uid_for("job_isolation"))
        _deep_tree(cache, levels=250)
        tree_by_descriptor.empty_folder(cache)
        return 0 if os.listdir(cache) == [] else 2

    try:
        assert _in_child(test) == 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@needs_root
def test_chown_tree_reaches_past_path_max(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    _deep_tree(str(tree))
    sandbox.chown_tree(str(tree), uid_for("job_isolation"), uid_for("job_isolation"))

    def owners_below():
        owners = set()
        fd = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
        while True:
            owners |= {os.stat(n, dir_fd=fd, follow_symlinks=False).st_uid for n in os.listdir(fd)}
            if "d" * 20 not in os.listdir(fd):
                os.close(fd)
                return owners
            child = os.open("d" * 20, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child

    assert owners_below() == {uid_for("job_isolation")}
    tree_by_descriptor.empty_folder(str(tree))


# -- threads of an exited leader -----------------------------------------------------------

SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.rfind(")") + 2:].split()[0]


def _zombie_leader_with_a_live_thread(uid: int) -> int:
    """Forks a process of `uid` whose leader thread exits (SYS_exit, not exit_group) while a
    second thread lives on; returns its pid once /proc shows exactly that."""
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        import threading
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # holds none of pytest's pipes, whatever happens to it
            os.dup2(null, fd)
        os.setgid(uid)
        os.setuid(uid)
        threading.Thread(target=lambda: time.sleep(3600), daemon=True).start()
        os.write(ready_w, b"1")
        ctypes.CDLL(None).syscall(SYS_EXIT, 0)  # the leader alone ends
        os._exit(3)
    os.close(ready_w)
    os.read(ready_r, 1)
    os.close(ready_r)
    deadline = time.monotonic() + WAIT_S
    while _state(pid) != "Z":
        assert time.monotonic() < deadline, "the leader never exited"
        time.sleep(0.01)
    return pid


@needs_root
@pytest.mark.skipif(SYS_EXIT is None, reason="exit's syscall number is not known here")
@pytest.mark.timeout(120)
def test_a_live_thread_of_a_zombie_leader_of_the_uid_is_reaped():
    def test():
        leftover_processes.kill_leftovers(None, uid_for("job_isolation"))  # whatever an earlier, failed run left
        pid = _zombie_leader_with_a_live_thread(uid_for("job_isolation"))
        try:
            threads = [int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid]
            if len(threads) != 1 or _state(pid) != "Z":
                return 2  # not the scenario
            if leftover_processes.leftover_tasks(None, uid_for("job_isolation")) != {pid: threads}:
                return 3
            if leftover_processes.kill_leftovers(None, uid_for("job_isolation")) != 1:
                return 4
            deadline = time.monotonic() + WAIT_S
            while os.path.exists(f"/proc/{pid}"):  # reaped once every thread died
                if time.monotonic() > deadline:
                    return 5
                leftover_processes.reap_children()
                time.sleep(0.01)
            return 0 if leftover_processes.leftover_tasks(None, uid_for("job_isolation")) == {} else 6
        finally:
            if os.path.exists(f"/proc/{pid}"):
                for tid in os.listdir(f"/proc/{pid}/task"):
                    leftover_processes._kill_thread(pid, int(tid))

    assert _in_child(test) == 0


# -- places every uid may write --------------------------------------------------------------

@needs_root
@pytest.mark.timeout(120)
def test_temp_folders_and_ipc_are_private_and_the_rest_read_only(tmp_path):
    home = tempfile.mkdtemp(prefix="keval-ww-", dir=os.path.expanduser("~"))  # on a storage mount
    os.chmod(home, 0o1777)  # a world-writable folder some package made
    writable = tempfile.mkdtemp(prefix="keval-job-", dir=os.path.expanduser("~"))
    marker = f"keval_isolation_marker_{os.getpid()}"
    key = 0x4B450000 + os.getpid() % 0xFFFF
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(f"\0{marker}")
    listener.listen(1)

    def test():
        job_warnings = []
        assert private_tmp.make_private([writable], job_warnings, writable=[writable])
        assert sandbox.isolate_network(False, job_warnings)
        libc = ctypes.CDLL(None, use_errno=True)
        for root in private_tmp.temp_roots():
            with open(os.path.join(root, marker), "w") as f:
                f.write("an answer")
        if libc.shmget(ctypes.c_int(key), ctypes.c_size_t(4096), ctypes.c_int(0o1000 | 0o666)) < 0:  # IPC_CREAT
            return 2
        try:
            open(os.path.join(home, marker), "w").close()
            return 3  # a world-writable folder outside the temp folders stayed writable
        except OSError as exc:
            if exc.errno != 30:  # EROFS
                return 4
        open(os.path.join(writable, marker), "w").close()
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            client.connect(f"\0{marker}")
            return 5  # the abstract socket of another network namespace answered
        except OSError:
            pass
        return 0 if not job_warnings else 6

    try:
        assert _in_child(test) == 0
        for root in private_tmp.temp_roots():
            assert not os.path.exists(os.path.join(root, marker)), root
        assert not os.path.exists(os.path.join(home, marker))
        assert os.path.exists(os.path.join(writable, marker))  # the job's own folder was writable
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.shmget(ctypes.c_int(key), ctypes.c_size_t(4096), ctypes.c_int(0o666)) < 0
        assert ctypes.get_errno() == 2  # ENOENT: the segment lived in the job's IPC namespace
    finally:
        listener.close()
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(writable, ignore_errors=True)
