"""One peer script run the way compare-judges runs them all: its own process group (killed,
children included, at the timeout; the peers' harnesses have no limit), outside any sandbox, as
the peers' harnesses run them."""

import os
import signal
import subprocess


def run_script(command: list, cwd: str, env: dict, timeout: float) -> dict:
    """{rc, stdout, stderr, timeout}; rc is None when it was killed at the timeout."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, env=env, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the script's own children too
        except ProcessLookupError:
            pass
        proc.communicate()
        return {"rc": None, "stdout": "", "stderr": f"timeout after {timeout:.0f} s", "timeout": True}
    return {"rc": proc.returncode, "stdout": stdout, "stderr": stderr, "timeout": False}
