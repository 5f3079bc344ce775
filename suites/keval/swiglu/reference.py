import torch
import torch.nn.functional as F


def reference(gate_up):
    inter = gate_up.shape[1] // 2
    gate, up = gate_up[:, :inter], gate_up[:, inter:]
    return (F.silu(gate.float()) * up.float()).to(gate_up.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, inter = case["T"], case["I"]
    gate_up = 2 * torch.randn(T, 2 * inter, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the gate values near +-1000: exp(1000) overflows float32, and
        # g * exp(g) / (1 + exp(g)) gives inf / inf = NaN
        gate = gate_up[:, :inter]
        flat = gate.reshape(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        sign = torch.randint(0, 2, (idx.numel(),), generator=g, device=dev) * 2 - 1
        flat[idx] = sign * (900 + 100 * torch.rand(idx.numel(), generator=g, device=dev))
        gate_up[:, :inter] = flat.view(T, inter)
    return (gate_up.to(dtype).to(dev),)
