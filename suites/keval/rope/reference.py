import torch


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def reference(x, cos, sin):
    cos = cos[None, :, None, :]
    sin = sin[None, :, None, :]
    return x * cos + _rotate_half(x) * sin


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    B, S, H, D = case["B"], case["S"], case["H"], case["D"]
    x = torch.randn(B, S, H, D, generator=g, device="cpu")
    # rotary angles pos * theta^(-2i/D), with a random phase per half so the two halves of
    # cos/sin differ (a kernel reading only one half fails)
    inv_freq = 10000.0 ** (-torch.arange(0, D, 2, dtype=torch.float64, device="cpu") / D)
    angles = torch.arange(S, dtype=torch.float64, device="cpu")[:, None] * inv_freq[None, :]
    phase = 2 * torch.pi * torch.rand(2, D // 2, generator=g, dtype=torch.float64, device="cpu")
    angles = torch.cat((angles + phase[0], angles + phase[1]), dim=-1)
    cos, sin = angles.cos().float(), angles.sin().float()
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device="cpu")[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    dev = torch.empty(0).device
    return x.to(dtype).to(dev), cos.to(dtype).to(dev), sin.to(dtype).to(dev)
