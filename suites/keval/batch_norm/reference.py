import torch
import torch.nn.functional as F


def reference(x, running_mean, running_var, weight, bias, eps=1e-5):
    y = F.batch_norm(x.float(), running_mean, running_var, weight, bias, training=False, eps=eps)
    return y.to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, C, H, W = case["N"], case["C"], case["H"], case["W"]
    running_mean = 0.5 * torch.randn(C, generator=g, device=dev)
    running_var = 0.25 + 1.75 * torch.rand(C, generator=g, device=dev)
    weight = 1 + 0.5 * torch.randn(C, generator=g, device=dev)
    bias = 0.5 * torch.randn(C, generator=g, device=dev)
    # activations roughly follow the running statistics of their channel
    x = running_mean[None, :, None, None] + running_var.sqrt()[None, :, None, None] * torch.randn(
        N, C, H, W, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the activations 1000x larger; one channel with a large mean (100) and tiny
        # variance (1e-6 << eps: a missing eps blows up)
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
        running_mean[1] = 100.0
        running_var[2] = 1e-6
        x[:, 2] = running_mean[2] + 1e-3 * torch.randn(N, H, W, generator=g, device=dev)
    return (x.to(dtype).to(dev), running_mean.to(dev), running_var.to(dev), weight.to(dev), bias.to(dev))
