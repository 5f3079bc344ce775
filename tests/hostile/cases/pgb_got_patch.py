# task: relu
# expect: pass|tampering
# device: both
# needs: timing
# speedup_at_most: 2
# why: GOT hook: the interpreter's GOT slot for clock_gettime (found by parsing its ELF relocations) pointed at a stub that reads the clock 100x slow; computes right (pygpubench submission_got_patch)
"""Port of gpu-mode/pygpubench exploits/submission_got_patch.py (the extension's GOT entry for
cudaEventElapsedTime replaced): here the Python executable's own GOT entry for clock_gettime,
through which time.perf_counter reads the clock, is pointed at a scaling stub."""
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


def _got_slot(path: str, symbol: str):
    """(ELF type, virtual address of the GOT slot the dynamic linker fills for symbol)."""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF":
        return None, None
    e_type = struct.unpack_from("<H", elf, 16)[0]
    shoff = struct.unpack_from("<Q", elf, 40)[0]
    shentsize, shnum = struct.unpack_from("<HH", elf, 58)
    sections = []
    for i in range(shnum):
        base = shoff + i * shentsize
        kind = struct.unpack_from("<I", elf, base + 4)[0]
        offset, size = struct.unpack_from("<QQ", elf, base + 24)
        link = struct.unpack_from("<I", elf, base + 40)[0]
        entsize = struct.unpack_from("<Q", elf, base + 56)[0]
        sections.append((kind, offset, size, link, entsize))
    dynsym = next((s for s in sections if s[0] == 11), None)  # SHT_DYNSYM
    if dynsym is None:
        return e_type, None
    strtab = sections[dynsym[3]]
    wanted = None
    for i in range(dynsym[2] // (dynsym[4] or 24)):
        name_at = strtab[1] + struct.unpack_from("<I", elf, dynsym[1] + i * 24)[0]
        if elf[name_at: elf.index(b"\0", name_at)] == symbol.encode():
            wanted = i
            break
    if wanted is None:
        return e_type, None
    for kind, offset, size, _, entsize in sections:
        if kind != 4:  # SHT_RELA
            continue
        for at in range(offset, offset + size, entsize or 24):
            r_offset, r_info = struct.unpack_from("<QQ", elf, at)
            if r_info >> 32 == wanted:
                return e_type, r_offset
    return e_type, None


def _load_base(path: str, e_type: int) -> int:
    if e_type == 2:  # ET_EXEC: linked at its addresses
        return 0
    real = os.path.realpath(path)
    with open("/proc/self/maps") as maps:
        starts = [int(line.split("-")[0], 16) for line in maps if line.rstrip().endswith(real)]
    return min(starts)


def _patch() -> bool:
    exe = os.path.realpath("/proc/self/exe")
    e_type, slot = _got_slot(exe, "clock_gettime")
    if slot is None:
        return False
    address = _load_base(exe, e_type) + slot
    page = address & ~4095
    _libc.mprotect(page, 4096, 3)  # a full-RELRO GOT is read-only: nothing seals it
    ctypes.c_uint64.from_address(address).value = _stub_page()
    return True


try:
    _HOOKED = _patch()
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
