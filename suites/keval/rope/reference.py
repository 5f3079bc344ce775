import torch


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def reference(x, cos, sin):
    cos = cos[None, :, None, :]
    sin = sin[None, :, None, :]
    return x * cos + _rotate_half(x) * sin


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, S, H, D = case["B"], case["S"], case["H"], case["D"]
    x = torch.randn(B, S, H, D, generator=g, device=dev)
    # rotary angles pos * theta^(-2i/D), with a random phase per half so the two halves of
    # cos/sin differ (a kernel reading only one half fails)
    inv_freq = 10000.0 ** (-torch.arange(0, D, 2, dtype=torch.float64, device=dev) / D)
    angles = torch.arange(S, dtype=torch.float64, device=dev)[:, None] * inv_freq[None, :]
    phase = 2 * torch.pi * torch.rand(2, D // 2, generator=g, dtype=torch.float64, device=dev)
    angles = torch.cat((angles + phase[0], angles + phase[1]), dim=-1)
    cos, sin = angles.cos().float(), angles.sin().float()
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, all in the first half of the head dim:
        # an element and its rotation partner (d and d + D/2) are never both large, so no
        # output is a near-cancellation of two large products (there the reference's two
        # roundings to bfloat16 alone differ from a float32 kernel by ~16)
        half = D // 2
        picked = torch.randperm(x.numel() // 2, generator=g, device=dev)[: max(1, x.numel() // 100)]
        x.view(-1)[(picked // half) * D + picked % half] *= 1e3
    return x.to(dtype).to(dev), cos.to(dtype).to(dev), sin.to(dtype).to(dev)
