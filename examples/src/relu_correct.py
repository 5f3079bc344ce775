# task: relu
# expect: pass
# why: a correct 2-D tiled kernel (row blocks x column blocks)
import torch
import triton
import triton.language as tl


@triton.jit
def relu_2d(x_ptr, y_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    offs = r[:, None] * cols + c[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0).to(y_ptr.dtype.element_ty), mask=mask)


def relu(x):
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    BR, BC = 16, 128
    relu_2d[(triton.cdiv(rows, BR), triton.cdiv(cols, BC))](x, y, rows, cols, BR=BR, BC=BC)
    return y
