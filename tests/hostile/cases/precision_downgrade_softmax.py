# task: softmax
# expect: mismatch
# device: both
# why: computes softmax in float16 internally for float32 inputs (half the bytes), losing precision on outliers
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-60000.0).to(tl.float16)
    num = tl.exp((x - tl.max(x, axis=0)).to(tl.float32)).to(tl.float16)
    y = num / tl.sum(num.to(tl.float32), axis=0).to(tl.float16)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    rows, cols = x2.shape
    y = torch.empty_like(x2)
    _softmax_kernel[(rows,)](x2, y, cols, BLOCK=triton.next_power_of_2(cols))
    return y.reshape(x.shape)
