import torch


def reference(src, index, num_rows):
    out = torch.zeros(num_rows, src.shape[1], dtype=src.dtype, device=src.device)
    return out.index_add_(0, index, src)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    n, D, num_rows = case["n"], case["D"], case["num_rows"]
    # integer-valued float32 data: every partial sum is an integer below 2^24 in magnitude, so
    # float32 addition is exact in any order and atomic adds give one deterministic answer
    src = torch.randint(-8, 9, (n, D), generator=g, device=dev).float()
    index = torch.randint(0, num_rows, (n,), generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the values are multiples of 1024 up to 2^17 in magnitude; row 0 receives a
        # seventh of all source rows (~300 here, of which ~3 outliers per column), so partial
        # sums stay below ~2^19, far from 2^24: still exact
        flat = src.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] = 1024.0 * torch.randint(-128, 129, (idx.numel(),), generator=g, device=dev).float()
        index[index % 7 == 3] = 0
    return src.to(dtype).to(dev), index.to(dev), num_rows
