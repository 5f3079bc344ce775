import torch
import triton
import triton.language as tl


@triton.jit
def _cast_bf16_rne_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # round to nearest, ties to even, on the bit pattern: add 0x7FFF plus the lowest kept bit,
    # then drop the low 16 bits (carries into the exponent give the next binade or inf).
    # The same code runs on the GPU and in the CPU interpreter (whose own float32 -> bfloat16
    # conversion truncates).
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    bits = x.to(tl.uint32, bitcast=True)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    is_nan = (bits & 0x7FFFFFFF) > 0x7F800000
    out = tl.where(is_nan, (bits >> 16) | 0x40, rounded)  # NaN stays a (quiet) NaN
    tl.store(y_ptr + offs, out.to(tl.uint16).to(tl.bfloat16, bitcast=True), mask=mask)


def cast_fp32_bf16(x):
    x = x.contiguous()
    y = torch.empty(x.shape, dtype=torch.bfloat16, device=x.device)
    n = x.numel()
    BLOCK = 4096
    _cast_bf16_rne_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
    return y
