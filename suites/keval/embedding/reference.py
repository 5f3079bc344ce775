import torch
import torch.nn.functional as F


def reference(ids, weight):
    return F.embedding(ids, weight)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, S, V, dim = case["B"], case["S"], case["V"], case["dim"]
    weight = 0.02 * torch.randn(V, dim, generator=g, device=dev)
    ids = torch.randint(0, V, (B, S), generator=g, device=dev)
    if case.get("outliers"):
        # large-magnitude rows; the first and last token ids used often (padding / EOS)
        weight[:: max(1, V // 16)] *= 1e5
        ids[:, ::4] = 0
        ids[:, 1::4] = V - 1
    return ids.to(dev), weight.to(dtype).to(dev)
