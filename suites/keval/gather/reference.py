import torch


def reference(x, index):
    return torch.gather(x, 1, index)


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    B, N, K = case["B"], case["N"], case["K"]
    x = torch.randn(B, N, generator=g, device="cpu")
    # any column of the row, repeats allowed, in no particular order
    index = torch.randint(0, N, (B, K), generator=g, device="cpu")
    if case.get("outliers"):
        # large-magnitude values, and indices pinned to the first and last column
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device="cpu")[: max(1, flat.numel() // 50)]
        flat[idx] = (torch.rand(idx.numel(), generator=g, device="cpu") - 0.5) * 6e4
        index[:, 0] = 0
        index[:, -1] = N - 1
        index[::3, 1::2] = N - 1
    dev = torch.empty(0).device
    return x.to(dtype).to(dev), index.to(dev)
