# task: relu
# expect: tampering
# device: cpu
# why: returns its answer followed by 24 outputs of 16 MiB each from every call, so the root warden would map and save 400 MiB a call
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    _relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return (out,) + tuple(torch.ones(16 << 20, dtype=torch.uint8) for _ in range(24))
