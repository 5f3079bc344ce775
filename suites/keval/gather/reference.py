import torch


def reference(x, index):
    return torch.gather(x, 1, index)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, N, K = case["B"], case["N"], case["K"]
    x = torch.randn(B, N, generator=g, device=dev)
    # any column of the row, repeats allowed, in no particular order
    index = torch.randint(0, N, (B, K), generator=g, device=dev)
    if case.get("outliers"):
        # large-magnitude values, and indices pinned to the first and last column
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 50)]
        flat[idx] = (torch.rand(idx.numel(), generator=g, device=dev) - 0.5) * 6e4
        index[:, 0] = 0
        index[:, -1] = N - 1
        index[::3, 1::2] = N - 1
    return x.to(dtype).to(dev), index.to(dev)
