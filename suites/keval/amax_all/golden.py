import torch
import triton
import triton.language as tl

_MAX_PROGRAMS = 1056  # 8 per SM on an H200 (132 SMs)


@triton.jit
def _amax_partial_kernel(x_ptr, part_ptr, n, num_full, BLOCK: tl.constexpr):
    # persistent programs: program p takes whole blocks p, p + P, p + 2P, ... unmasked (a mask
    # over an n that is not a multiple of 16 would cost Triton its 16-byte loads), the last
    # program also the partial tail block; a per-lane running max (-inf padding), one float32
    # partial per program. Compare in float32 (exact; the CPU interpreter cannot compare
    # bfloat16 values)
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    acc = tl.full([BLOCK], float("-inf"), tl.float32)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # int64: n may exceed 2**31
    step = nprog.to(tl.int64) * BLOCK
    for _ in range(pid, num_full, nprog):
        acc = tl.maximum(acc, tl.load(x_ptr + offs).to(tl.float32))
        offs += step
    if pid == nprog - 1:
        tail = num_full.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + tail, mask=tail < n, other=float("-inf")).to(tl.float32)
        acc = tl.maximum(acc, x)
    tl.store(part_ptr + pid, tl.max(acc, axis=0))


@triton.jit
def _amax_final_kernel(part_ptr, out_ptr, n_parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(part_ptr + offs, mask=offs < n_parts, other=float("-inf"))
    tl.store(out_ptr, tl.max(p, axis=0).to(out_ptr.dtype.element_ty))


def amax_all(x):
    x = x.contiguous()
    n = x.numel()
    BLOCK = 4096
    num_full = n // BLOCK
    programs = max(1, min(num_full, _MAX_PROGRAMS))
    part = torch.empty(programs, dtype=torch.float32, device=x.device)
    _amax_partial_kernel[(programs,)](x, part, n, num_full, BLOCK=BLOCK, num_warps=8)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    _amax_final_kernel[(1,)](part, out, programs, BLOCK=triton.next_power_of_2(programs),
                             num_warps=4)
    return out
