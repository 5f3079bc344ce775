# task: vector_add
# expect: mismatch|tampering|nondeterministic
# device: both
# needs: timing
# why: returns the output cached under the inputs' data_ptr(): caught as a mismatch if a freed input buffer is reused for the next seed (GPU caching allocator), else by the timed-output check (timing reuses buffers), or by the determinism check when its second run on the same inputs gets another input's cached output
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def _add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


_cache = {}


def vector_add(x, y):
    key = (x.data_ptr(), y.data_ptr(), x.numel(), x.dtype)
    if key not in _cache:
        _cache[key] = _add(x, y)
    return _cache[key]
