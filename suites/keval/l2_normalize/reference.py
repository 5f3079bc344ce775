import torch
import torch.nn.functional as F


def reference(x, eps=1e-12):
    return F.normalize(x.float(), p=2.0, dim=-1, eps=eps).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # rows 1000x larger (sum of squares ~1e6 * cols: overflows float16 if squared there),
        # single huge elements that dominate their row, an all-zero row (norm 0: the eps clamp
        # gives 0, a plain division gives NaN) and a row of tiny values
        x[: rows // 8] *= 1e3
        x[rows // 4, cols // 3] = 3e4
        x[rows // 2] = 0.0
        x[rows // 2 + 1] *= 1e-3
    if case.get("edge_peaks"):
        # each row's largest magnitude at its first or last column
        x[0::2, 0] = 1e3
        x[1::2, -1] = -1e3
    return x.to(dtype).to(dev), 1e-12
