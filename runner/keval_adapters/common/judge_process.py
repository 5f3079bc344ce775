"""One peer script run the way compare-judges runs them all: its own process group (killed,
children included, at the timeout; the peers' harnesses have no limit), outside any sandbox, as
the peers' harnesses run them."""

import os
import signal
import subprocess
import time

_deadline = None  # time.monotonic() after which no script starts (compare-judges --deadline)


def set_deadline(seconds: float) -> None:
    """The seconds the whole comparison may take from now (0: no limit). Scripts not started by
    then are skipped, and one still running then is cut and skipped too, so a comparison with
    too many scripts for its time still reports the ones it judged."""
    global _deadline
    _deadline = time.monotonic() + seconds if seconds and seconds > 0 else None


def skipped(why: str) -> dict:
    return {"rc": None, "stdout": "", "stderr": why, "timeout": False, "skipped": True}


def run_script(command: list, cwd: str, env: dict, timeout: float) -> dict:
    """{rc, stdout, stderr, timeout[, skipped]}; rc is None when it was killed at the timeout
    (or skipped: not run, or cut, at the deadline)."""
    limit = timeout
    if _deadline is not None:
        limit = min(timeout, _deadline - time.monotonic())
        if limit <= 0:
            return skipped("not run: the comparison's --deadline had passed")
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, env=env, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the script's own children too
        except ProcessLookupError:
            pass
        proc.communicate()
        if limit < timeout:
            return skipped("cut at the comparison's --deadline")
        return {"rc": None, "stdout": "", "stderr": f"timeout after {timeout:.0f} s", "timeout": True}
    return {"rc": proc.returncode, "stdout": stdout, "stderr": stderr, "timeout": False}
