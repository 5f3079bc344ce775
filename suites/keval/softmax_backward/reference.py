import torch


def reference(y, dy):
    yf, gf = y.float(), dy.float()
    return (yf * (gf - (gf * yf).sum(dim=-1, keepdim=True))).to(y.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    logits = 2 * torch.randn(rows, cols, generator=g, device=dev)
    dy = torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # peaked rows (one logit +30: a probability ~1, the rest tiny), and upstream
        # gradients 1000x larger in other rows
        peak = torch.randint(0, cols, (rows // 4,), generator=g, device=dev)
        logits[torch.arange(rows // 4, device=dev), peak] += 30
        dy[rows // 2: rows // 2 + rows // 8] *= 1e3
    if case.get("peak_first"):
        # even rows: probability ~1 at the first column (a dot product that skips column 0
        # loses nearly all of it); odd rows: flat, with gradients past float16's range
        # (~1e5: float32 and bfloat16 cases only), which a float16 conversion turns to inf
        logits[0::2, 0] += 30
        dy[1::2] *= 1e5
    y = torch.softmax(logits, dim=-1)
    return y.to(dtype).to(dev), dy.to(dtype).to(dev)
