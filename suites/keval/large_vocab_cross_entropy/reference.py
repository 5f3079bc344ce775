import torch
import torch.nn.functional as F

IGNORE = -100


def reference(logits, target):
    return F.cross_entropy(logits.float(), target, ignore_index=IGNORE)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, V = case["T"], case["V"]
    # `scale`: logits in the thousands, where float16 steps are 0.5 (a target logit rounded
    # through it is off by ~0.25)
    logits = 2 * case.get("scale", 1) * torch.randn(T, V, generator=g, device=dev)
    target = torch.randint(0, V, (T,), generator=g, device=dev)
    # ~10% padding rows (ignored); row 0 always counts
    pad = torch.rand(T, generator=g, device=dev) < 0.1
    pad[0] = False
    if case.get("counted"):
        # exactly this many rows count: 2049 is no float16 (nor bfloat16) number
        pad = torch.arange(T, device=dev) >= case["counted"]
    target[pad] = IGNORE
    if case.get("outliers"):
        # exp(100) overflows float32: without max-subtraction the loss becomes inf or NaN
        flat = logits.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        sign = torch.randint(0, 2, (idx.numel(),), generator=g, device=dev) * 2 - 1
        flat[idx] = sign * (90 + 10 * torch.rand(idx.numel(), generator=g, device=dev))
        logits[: T // 4, V - 1] = 100.0  # the last column of some rows (the loop's tail)
    return logits.to(dtype).to(dev), target.to(dev)
