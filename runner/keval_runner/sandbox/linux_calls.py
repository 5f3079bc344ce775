"""The few libc calls the sandbox makes that Python's os module lacks (or lacks before 3.12)."""

import ctypes
import os


def libc():
    return ctypes.CDLL(None, use_errno=True)


def unshare(flags: int):
    """0 on success, else the errno."""
    try:
        c = libc()
        if c.unshare(ctypes.c_int(flags)) == 0:
            return 0
        return ctypes.get_errno() or -1
    except Exception:
        return -1


def errno_reason(error: int) -> str:
    return os.strerror(error) if error > 0 else f"error {error}"
