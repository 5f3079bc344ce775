import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_temp_mask_kernel(x_ptr, mask_ptr, y_ptr, q_len, k_len, inv_temp,
                              BLOCK: tl.constexpr):
    # one (batch, head, query) row per program, whole in registers; its mask row is
    # row % q_len (the mask is shared by all batches and heads and stays in L2)
    row = tl.program_id(0).to(tl.int64)
    q = row % q_len
    cols = tl.arange(0, BLOCK)
    inb = cols < k_len
    x = tl.load(x_ptr + row * k_len + cols, mask=inb, other=0.0).to(tl.float32)
    mk = tl.load(mask_ptr + q * k_len + cols, mask=inb, other=-float("inf")).to(tl.float32)
    z = x * inv_temp + mk  # hidden keys and padding are -inf
    z_max = tl.max(z, axis=0)  # finite: every row keeps a visible key
    num = tl.exp(z - z_max)  # exp(-inf) = 0
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * k_len + cols, y.to(y_ptr.dtype.element_ty), mask=inb)


def softmax_temp_mask(x, mask, temperature):
    x = x.contiguous()
    mask = mask.contiguous()
    B, H, Q, K = x.shape
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(K)
    warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
    _softmax_temp_mask_kernel[(B * H * Q,)](x, mask, y, Q, K, 1.0 / float(temperature),
                                            BLOCK=BLOCK, num_warps=warps)
    return y
