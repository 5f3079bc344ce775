# task: vector_add
# expect: tampering
# device: cuda
# needs: timing
# why: launches the real kernel on a side CUDA stream, so events on the current stream time almost nothing
import torch
import triton
import triton.language as tl

_side = None


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add(x, y):
    global _side
    if _side is None:
        _side = torch.cuda.Stream(device=x.device)
    out = torch.empty_like(x)
    _side.wait_stream(torch.cuda.current_stream(x.device))
    with torch.cuda.stream(_side):
        n = x.numel()
        _add_kernel[(triton.cdiv(n, 2048),)](x, y, out, n, BLOCK=2048)
    return out  # no wait_stream back: the caller's stream never waits for the work
