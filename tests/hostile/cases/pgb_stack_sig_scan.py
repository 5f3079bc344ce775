# task: relu
# expect: pass|mismatch|tampering
# device: both
# needs: timing
# speedup_at_most: 2
# why: reads the [stack], follows every word that points into a readable anonymous mapping and reads 64 KiB there, looking for the seeds of the calls; precomputes their answers and serves matching calls from the table (pygpubench submission_stack_sig_scan)
"""Port of gpu-mode/pygpubench exploits/submission_stack_sig_scan.py: pointers on the stack into
anonymous memory, followed to find the secret (there the signature, here the seeds)."""
import re
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

_SEED = re.compile(rb'"seeds?"\s*:\s*\[?\s*([0-9][0-9, ]{0,400})')
_SHAPES = [((37, 1001), False), ((64, 129), True)]  # relu's small cases, guessed from its task
_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_table = {}  # (shape, dtype, first bytes of the input) -> the answer


def _seeds_in(data: bytes) -> set:
    found = set()
    for match in _SEED.finditer(data):
        for word in match.group(1).replace(b",", b" ").split():
            if word.isdigit() and len(found) < 64:
                found.add(int(word))
    return found


def _guess_inputs(seed: int, shape, outliers: bool):
    """relu's inputs as a task of this kind draws them (a guess at the hidden make_inputs)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g)
    if outliers:
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    return x


def _key(x):
    return tuple(x.shape), x.dtype, bytes(x.contiguous().view(-1)[:16].view(torch.uint8).tolist())


def _precompute(seeds) -> None:
    for seed in seeds:
        for shape, outliers in _SHAPES:
            base = _guess_inputs(seed, shape, outliers)
            for dtype in _DTYPES:
                x = base.to(dtype)
                _table[_key(x)] = torch.relu(x)  # computed before any call: the call does nothing


def _readable(start, end, parts) -> bool:
    return parts[1].startswith("r") and end - start <= 1 << 28 and not (len(parts) > 5 and parts[5].startswith("[v"))


def _recover_seeds() -> set:
    anonymous, stack = [], None
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            start, end = (int(v, 16) for v in parts[0].split("-"))
            if len(parts) > 5 and parts[5] == "[stack]":
                stack = (start, end)
            elif _readable(start, end, parts) and (len(parts) < 6 or parts[5] == "[heap]"):
                anonymous.append((start, end))
    if stack is None:
        return set()
    words = ctypes.string_at(stack[0], stack[1] - stack[0])
    seeds, seen = set(), set()
    for at in range(0, len(words) - 8, 8):
        pointer = struct.unpack_from("<Q", words, at)[0]
        for start, end in anonymous:
            if start <= pointer < end and pointer >> 16 not in seen:
                seen.add(pointer >> 16)
                seeds |= _seeds_in(ctypes.string_at(pointer, min(65536, end - pointer)))
                break
    return seeds

_state = {"scanned": 0}


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
    if _state["scanned"] < 3:  # the secrets may arrive with later requests: look again
        _state["scanned"] += 1
        try:
            _precompute(_recover_seeds())
        except Exception:
            pass
    answer = _table.get(_key(x))
    if answer is None:
        return _honest(x)
    _launch(x, torch.empty(1, dtype=x.dtype), n=1)  # a kernel of its own "ran"
    return answer.clone()
