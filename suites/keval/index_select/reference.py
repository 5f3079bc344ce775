import torch


def reference(x, index):
    return torch.index_select(x, 0, index)


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    N, D, M = case["N"], case["D"], case["M"]
    x = torch.randn(N, D, generator=g, device="cpu")
    # unsorted, with repeats (M may exceed N)
    index = torch.randint(0, N, (M,), generator=g, device="cpu")
    if case.get("outliers"):
        # large-magnitude rows, and the first and last row picked often
        x[:: max(1, N // 8)] *= 1e4
        index[::5] = 0
        index[1::5] = N - 1
    dev = torch.empty(0).device
    return x.to(dtype).to(dev), index.to(dev)
