import torch


def reference(x):
    # torch.cumsum(x, dim=-1), accumulated in float32 on every device: on CUDA, cumsum of
    # float16/bfloat16 accumulates in half precision (8x the CPU's error on 1001 columns)
    return torch.cumsum(x, dim=-1, dtype=torch.float32).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    return (x.to(dtype).to(dev),)
