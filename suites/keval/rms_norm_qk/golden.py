import torch
import triton
import triton.language as tl


@triton.jit
def _head_rms(x_ptr, w_ptr, y_ptr, rows, n_rows, D, eps, BLOCK_D: tl.constexpr):
    # a [ROWS, D] tile of head vectors: each row normalised over D in float32
    d = tl.arange(0, BLOCK_D)
    mask = (rows[:, None] < n_rows) & (d[None, :] < D)
    offs = rows[:, None] * D + d[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=1) / D + eps)
    w = tl.load(w_ptr + d, mask=d < D, other=0.0).to(tl.float32)
    out_ty = y_ptr.dtype.element_ty
    y = ((x * inv[:, None]).to(out_ty).to(tl.float32) * w[None, :]).to(out_ty)
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def _qk_norm_kernel(q_ptr, k_ptr, qw_ptr, kw_ptr, qo_ptr, ko_ptr, n_q, n_k, D, eps, q_progs,
                    ROWS: tl.constexpr, BLOCK_D: tl.constexpr):
    # one launch for both tensors: the first q_progs programs take query heads, the rest keys
    pid = tl.program_id(0)
    if pid < q_progs:
        rows = pid.to(tl.int64) * ROWS + tl.arange(0, ROWS)
        _head_rms(q_ptr, qw_ptr, qo_ptr, rows, n_q, D, eps, BLOCK_D)
    else:
        rows = (pid - q_progs).to(tl.int64) * ROWS + tl.arange(0, ROWS)
        _head_rms(k_ptr, kw_ptr, ko_ptr, rows, n_k, D, eps, BLOCK_D)


def rms_norm_qk(q, k, q_weight, k_weight, eps=1e-6):
    q, k = q.contiguous(), k.contiguous()
    q_weight, k_weight = q_weight.contiguous(), k_weight.contiguous()
    D = q.shape[-1]
    n_q = q.numel() // D
    n_k = k.numel() // D
    q_out, k_out = torch.empty_like(q), torch.empty_like(k)
    BLOCK_D = triton.next_power_of_2(D)
    ROWS = max(1, 4096 // BLOCK_D)
    q_progs = triton.cdiv(n_q, ROWS)
    grid = (q_progs + triton.cdiv(n_k, ROWS),)
    _qk_norm_kernel[grid](q, k, q_weight, k_weight, q_out, k_out, n_q, n_k, D, eps, q_progs,
                          ROWS=ROWS, BLOCK_D=BLOCK_D, num_warps=4)
    return q_out, k_out
