# task: relu
# expect: mismatch|nan_mismatch|tampering
# device: both
# why: computes each shape once, then returns uninitialised memory of the same size, hoping the allocator hands back the block that held the previous (correct-looking) output
import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


_seen = set()


def relu(x):
    key = (tuple(x.shape), x.dtype)
    out = torch.empty_like(x)
    if key in _seen:
        return out  # whatever the freed block last held
    _seen.add(key)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x.contiguous(), out, n, BLOCK=1024)
    return out
