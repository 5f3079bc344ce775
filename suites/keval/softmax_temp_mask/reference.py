import torch


def reference(x, mask, temperature):
    return torch.softmax(x.float() / temperature + mask.float(), dim=-1).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, H, Q, K = case["batch"], case["heads"], case["q_len"], case["k_len"]
    x = 2 * torch.randn(B, H, Q, K, generator=g, device=dev)
    if case.get("outliers"):
        # exp(100 / T) overflows float32: without max-subtraction the result is inf/inf = NaN.
        # ~2% of the scores near +-100, and query row Q // 2 of every head shifted by +100
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 50)]
        sign = torch.randint(0, 2, (idx.numel(),), generator=g, device=dev) * 2 - 1
        flat[idx] = sign * (95 + 5 * torch.rand(idx.numel(), generator=g, device=dev))
        x[:, :, Q // 2, :] += 100
    # causal mask aligned to the last query (key j hidden from query i when j > i + K - Q), with
    # small finite biases on the visible keys
    i = torch.arange(Q, device=dev)[:, None]
    j = torch.arange(K, device=dev)[None, :]
    bias = 0.5 * torch.randn(Q, K, generator=g, device=dev)
    mask = torch.where(j > i + (K - Q), torch.full_like(bias, float("-inf")), bias)
    temperature = 0.5 + 0.5 * torch.rand(1, generator=g, device=dev).item()
    return x.to(dtype).to(dev), mask.to(dtype).to(dev), temperature
