import torch
import triton
import triton.language as tl

_BLOCK = 4096  # elements of one group handled by one program


@triton.jit
def _gn_stats_kernel(x_ptr, mean_ptr, m2_ptr, group_size, n_chunks, BLOCK: tl.constexpr):
    # one chunk of one (sample, group): chunk mean and sum of squared deviations from it,
    # both exact two-pass in registers (robust to large offsets)
    grp = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < group_size
    x = tl.load(x_ptr + grp * group_size + offs, mask=mask, other=0.0).to(tl.float32)
    count = tl.minimum(group_size - chunk * BLOCK, BLOCK).to(tl.float32)
    mean = tl.sum(x, axis=0) / count
    d = tl.where(mask, x - mean, 0.0)
    tl.store(mean_ptr + grp * n_chunks + chunk, mean)
    tl.store(m2_ptr + grp * n_chunks + chunk, tl.sum(d * d, axis=0))


@triton.jit
def _gn_apply_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, m2_ptr, group_size, n_chunks,
                     hw, groups, chans_per_group, eps,
                     BLOCK: tl.constexpr, CHUNKS_P2: tl.constexpr):
    grp = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    # combine the chunk statistics of this group (Chan et al.), redundantly per program
    c = tl.arange(0, CHUNKS_P2)
    cmask = c < n_chunks
    cm = tl.load(mean_ptr + grp * n_chunks + c, mask=cmask, other=0.0)
    cm2 = tl.load(m2_ptr + grp * n_chunks + c, mask=cmask, other=0.0)
    cnt = tl.where(cmask, tl.minimum(group_size - c * BLOCK, BLOCK), 0).to(tl.float32)
    n = group_size.to(tl.float32)
    mean = tl.sum(cnt * cm, axis=0) / n
    dm = tl.where(cmask, cm - mean, 0.0)
    var = (tl.sum(cm2, axis=0) + tl.sum(cnt * dm * dm, axis=0)) / n
    rstd = tl.rsqrt(var + eps)

    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < group_size
    x = tl.load(x_ptr + grp * group_size + offs, mask=mask, other=0.0).to(tl.float32)
    ch = (grp % groups) * chans_per_group + offs // hw
    w = tl.load(w_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + ch, mask=mask, other=0.0).to(tl.float32)
    y = (x - mean) * rstd * w + b
    tl.store(y_ptr + grp * group_size + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm(x, weight, bias, num_groups, eps=1e-5):
    N, C, H, W = x.shape
    x = x.contiguous()
    weight = weight.contiguous()
    bias = bias.contiguous()
    cg = C // num_groups
    group_size = cg * H * W
    n_chunks = triton.cdiv(group_size, _BLOCK)
    n_groups = N * num_groups
    y = torch.empty_like(x)
    mean = torch.empty((n_groups, n_chunks), dtype=torch.float32, device=x.device)
    m2 = torch.empty((n_groups, n_chunks), dtype=torch.float32, device=x.device)
    grid = (n_groups, n_chunks)
    _gn_stats_kernel[grid](x, mean, m2, group_size, n_chunks, BLOCK=_BLOCK, num_warps=8)
    _gn_apply_kernel[grid](x, weight, bias, y, mean, m2, group_size, n_chunks, H * W, num_groups, cg,
                           eps, BLOCK=_BLOCK, CHUNKS_P2=max(16, triton.next_power_of_2(n_chunks)),
                           num_warps=8)
    return y
