import torch


def reference(x, index):
    return torch.index_select(x, 0, index)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, D, M = case["N"], case["D"], case["M"]
    x = torch.randn(N, D, generator=g, device=dev)
    # unsorted, with repeats (M may exceed N)
    index = torch.randint(0, N, (M,), generator=g, device=dev)
    if case.get("outliers"):
        # large-magnitude rows, and the first and last row picked often
        x[:: max(1, N // 8)] *= 1e4
        index[::5] = 0
        index[1::5] = N - 1
    return x.to(dtype).to(dev), index.to(dev)
