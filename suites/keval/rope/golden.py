import torch
import triton
import triton.language as tl


@triton.jit
def _rope_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, S, H, HALF,
                 BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    # program (b*S + s, head block): a [BLOCK_H, HALF] tile of each half; cos/sin of the
    # position are loaded once and broadcast over the heads
    bs = tl.program_id(0).to(tl.int64)
    s = bs % S
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    d = tl.arange(0, BLOCK_D)
    dmask = d < HALF
    mask = (heads[:, None] < H) & dmask[None, :]
    D = 2 * HALF
    offs = bs * H * D + heads[:, None] * D + d[None, :]
    x1 = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + offs + HALF, mask=mask, other=0.0).to(tl.float32)
    c1 = tl.load(cos_ptr + s * D + d, mask=dmask, other=0.0).to(tl.float32)[None, :]
    c2 = tl.load(cos_ptr + s * D + HALF + d, mask=dmask, other=0.0).to(tl.float32)[None, :]
    s1 = tl.load(sin_ptr + s * D + d, mask=dmask, other=0.0).to(tl.float32)[None, :]
    s2 = tl.load(sin_ptr + s * D + HALF + d, mask=dmask, other=0.0).to(tl.float32)[None, :]
    out_ty = y_ptr.dtype.element_ty
    tl.store(y_ptr + offs, (x1 * c1 - x2 * s1).to(out_ty), mask=mask)
    tl.store(y_ptr + offs + HALF, (x2 * c2 + x1 * s2).to(out_ty), mask=mask)


def rope(x, cos, sin):
    x = x.contiguous()
    cos = cos.contiguous()
    sin = sin.contiguous()
    B, S, H, D = x.shape
    y = torch.empty_like(x)
    BLOCK_D = triton.next_power_of_2(D // 2)
    BLOCK_H = min(triton.next_power_of_2(H), max(1, 2048 // BLOCK_D))
    grid = (B * S, triton.cdiv(H, BLOCK_H))
    _rope_kernel[grid](x, cos, sin, y, S, H, D // 2, BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D, num_warps=4)
    return y
