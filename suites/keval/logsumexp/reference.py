import torch


def reference(x):
    # the exact logsumexp (float64), rounded once to x's dtype
    return torch.logsumexp(x.double(), dim=-1).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = 2 * torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # exp(100) overflows float32 and exp(-150) underflows to 0: without max-subtraction
        # the result is inf or -inf. ~2% of the elements near +-100, one row in three shifted by
        # +100, one in three by -150
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 50)]
        sign = torch.randint(0, 2, (idx.numel(),), generator=g, device=dev) * 2 - 1
        flat[idx] = sign * (95 + 5 * torch.rand(idx.numel(), generator=g, device=dev))
        x[0::3] += 100
        x[1::3] -= 150
    if case.get("edge_peaks"):
        # each row's largest element, by far, at its first or last column
        x[0::2, 0] += 30
        x[1::2, -1] += 30
    return (x.to(dtype).to(dev),)
