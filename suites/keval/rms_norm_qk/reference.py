import torch


def _rms(x, w, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def reference(q, k, q_weight, k_weight, eps=1e-6):
    return _rms(q, q_weight, eps), _rms(k, k_weight, eps)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, Hq, Hkv, D = case["T"], case["Hq"], case["Hkv"], case["D"]
    q = torch.randn(T, Hq, D, generator=g, device=dev)
    k = torch.randn(T, Hkv, D, generator=g, device=dev)
    q_weight = 1 + 0.5 * torch.randn(D, generator=g, device=dev)
    k_weight = 1 + 0.5 * torch.randn(D, generator=g, device=dev)
    if case.get("outliers"):
        # some heads 1000x larger, a tiny head (mean square ~1e-8, far below eps)
        q[:, 0] *= 1e3
        k[: T // 2, -1] *= 1e3
        q[T // 2, Hq // 2] *= 1e-4
        k[T // 3, 0] *= 1e-4
    return (q.to(dtype).to(dev), k.to(dtype).to(dev), q_weight.to(dtype).to(dev),
            k_weight.to(dtype).to(dev))
