import torch
import triton
import triton.language as tl


@triton.jit
def _swiglu_kernel(x_ptr, y_ptr, inter, BLOCK: tl.constexpr):
    # grid (row, column block): contiguous, vectorised loads of the gate and up halves
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < inter
    gate = tl.load(x_ptr + row * 2 * inter + cols, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(x_ptr + row * 2 * inter + inter + cols, mask=mask, other=0.0).to(tl.float32)
    # gate / (1 + exp(-gate)): exp overflow gives gate / inf = -0.0, never NaN
    y = gate / (1.0 + tl.exp(-gate)) * up
    tl.store(y_ptr + row * inter + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def swiglu(gate_up):
    gate_up = gate_up.contiguous()
    T, two_i = gate_up.shape
    inter = two_i // 2
    y = torch.empty((T, inter), dtype=gate_up.dtype, device=gate_up.device)
    BLOCK = min(2048, triton.next_power_of_2(inter))
    grid = (T, triton.cdiv(inter, BLOCK))
    _swiglu_kernel[grid](gate_up, y, inter, BLOCK=BLOCK, num_warps=4 if BLOCK <= 1024 else 8)
    return y
