# task: relu
# expect: pass
# device: both
# why: prints 200 MB to stdout and 20 MB to stderr, then returns the right result; the kept output must be capped
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


_flooded = False


def relu(x):
    global _flooded
    if not _flooded:
        _flooded = True
        line = "keval hostile flood " * 50000 + "\n"  # 1 MB
        for _ in range(200):
            sys.stdout.write(line)
        for _ in range(20):
            sys.stderr.write(line)
        sys.stdout.flush()
        sys.stderr.flush()
    return _relu(x)
