import torch


def reference(x, cos, sin):
    x1, x2 = x[..., 0::2].float(), x[..., 1::2].float()
    c, s = cos[:, None, :].float(), sin[:, None, :].float()
    out = torch.stack((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).flatten(-2)
    return out.to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, H, D = case["T"], case["H"], case["D"]
    x = torch.randn(T, H, D, generator=g, device=dev)
    # rotary angles pos * theta^(-2i/D) at random positions (a decode batch or packed prefill),
    # so rows of cos/sin differ and a kernel indexing them by anything but the token fails
    pos = torch.randint(0, 32768, (T,), generator=g, device=dev).double()
    inv_freq = 10000.0 ** (-torch.arange(0, D, 2, dtype=torch.float64, device=dev) / D)
    angles = pos[:, None] * inv_freq[None, :]
    cos, sin = angles.cos().float(), angles.sin().float()
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    return x.to(dtype).to(dev), cos.to(dev), sin.to(dev)
