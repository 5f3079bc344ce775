import torch
import triton
import triton.language as tl


@triton.jit
def _rope_interleaved_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, H, HALF,
                             BLOCK_H: tl.constexpr, BLOCK_P: tl.constexpr):
    # program (token, head block): a contiguous [BLOCK_H, 2*BLOCK_P] tile split into its even
    # and odd lanes in registers, so loads and stores stay coalesced; cos/sin of the token are
    # loaded once and broadcast over the heads
    t = tl.program_id(0).to(tl.int64)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    D = 2 * HALF
    d = tl.arange(0, 2 * BLOCK_P)
    mask = (heads[:, None] < H) & (d[None, :] < D)
    offs = t * H * D + heads[:, None] * D + d[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x1, x2 = tl.split(tl.reshape(x, (BLOCK_H, BLOCK_P, 2)))
    p = tl.arange(0, BLOCK_P)
    c = tl.load(cos_ptr + t * HALF + p, mask=p < HALF, other=0.0)[None, :]
    s = tl.load(sin_ptr + t * HALF + p, mask=p < HALF, other=0.0)[None, :]
    y = tl.reshape(tl.join(x1 * c - x2 * s, x2 * c + x1 * s), (BLOCK_H, 2 * BLOCK_P))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def rope_interleaved(x, cos, sin):
    x = x.contiguous()
    cos = cos.contiguous()
    sin = sin.contiguous()
    T, H, D = x.shape
    y = torch.empty_like(x)
    BLOCK_P = triton.next_power_of_2(D // 2)
    BLOCK_H = min(triton.next_power_of_2(H), max(1, 4096 // (2 * BLOCK_P)))
    grid = (T, triton.cdiv(H, BLOCK_H))
    _rope_interleaved_kernel[grid](x, cos, sin, y, H, D // 2, BLOCK_H=BLOCK_H, BLOCK_P=BLOCK_P,
                                   num_warps=4)
    return y
