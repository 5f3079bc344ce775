# task: vector_add
# expect: pass
# device: both
# why: double-forks a setsid daemon and starts a new-session subprocess, both sleeping past the job; returns the right result
import os
import subprocess

import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def _add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


_started = False


def _daemonize():
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["keval_hostile_sleeper", "600"])
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def vector_add(x, y):
    global _started
    if not _started:
        _started = True
        _daemonize()
        subprocess.Popen(["keval_hostile_sleeper", "600"], executable="/bin/sleep",
                         start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return _add(x, y)
