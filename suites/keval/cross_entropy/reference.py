import torch
import torch.nn.functional as F


def reference(logits, target):
    return F.cross_entropy(logits.float(), target)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    batch, classes = case["batch"], case["classes"]
    logits = 2 * torch.randn(batch, classes, generator=g, device=dev)
    target = torch.randint(0, classes, (batch,), generator=g, device=dev)
    if case.get("outliers"):
        # exp(100) overflows float32: without max-subtraction the loss becomes inf or NaN
        flat = logits.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        sign = torch.randint(0, 2, (idx.numel(),), generator=g, device=dev) * 2 - 1
        flat[idx] = sign * (90 + 10 * torch.rand(idx.numel(), generator=g, device=dev))
        logits[: batch // 4, 0] = 100.0  # some rows surely overflow
    if case.get("shifted"):
        logits = logits + 60
    return logits.to(dtype).to(dev), target.to(dev)
