# task: cross_entropy
# expect: nan_mismatch
# why: logsumexp without max-subtraction: exp(~100) overflows float32 on the outlier case, the loss is inf
import torch
import triton
import triton.language as tl


@triton.jit
def ce_row_kernel(logits_ptr, target_ptr, loss_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        total += tl.sum(tl.exp(x.to(tl.float32)), axis=0)
    t = tl.load(target_ptr + row)
    x_t = tl.load(logits_ptr + row * n_cols + t).to(tl.float32)
    tl.store(loss_ptr + row, tl.log(total) - x_t)


@triton.jit
def mean_kernel(loss_ptr, out_ptr, n, BLOCK: tl.constexpr):
    total = 0.0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        total += tl.sum(tl.load(loss_ptr + offs, mask=offs < n, other=0.0), axis=0)
    tl.store(out_ptr, total / n)


def cross_entropy(logits, target):
    batch, classes = logits.shape
    losses = torch.empty(batch, dtype=torch.float32, device=logits.device)
    out = torch.empty((), dtype=torch.float32, device=logits.device)
    ce_row_kernel[(batch,)](logits, target, losses, classes, BLOCK=1024)
    mean_kernel[(1,)](losses, out, batch, BLOCK=256)
    return out
