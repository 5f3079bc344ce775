import torch


def reference(x, w):
    # float64 holds every product (<= 2^14) and sum (<= 2^27) exactly, on the CPU and the GPU
    return (x.double() @ w.double()).to(torch.int32)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    x = torch.randint(-128, 128, (M, K), generator=g, device=dev, dtype=torch.int8)
    w = torch.randint(-128, 128, (K, N), generator=g, device=dev, dtype=torch.int8)
    if case.get("outliers"):
        # saturated rows and columns: every product is +-2^14, the sums reach K * 2^14
        x[: M // 4] = -128
        w[:, : N // 4] = -128
        x[M // 2] = 127
    return x.to(dev), w.to(dev)
