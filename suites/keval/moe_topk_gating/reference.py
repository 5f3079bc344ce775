import torch


def reference(router_logits, top_k):
    p = torch.softmax(router_logits.float(), dim=-1)
    w, ids = torch.topk(p, top_k, dim=-1)
    return w / w.sum(dim=-1, keepdim=True), ids.to(torch.int32)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, E, K = case["T"], case["E"], case["K"]
    x = torch.randn(T, E, generator=g, device=dev)
    # no ties among the K+1 largest of a row, even after rounding to bfloat16: the K largest are
    # rebuilt above the (K+1)-th with gaps of 0.125-0.5 (>= 4 bfloat16 ulps below 8)
    vals, order = torch.sort(x, dim=1, descending=True)
    gaps = 0.125 + 0.375 * torch.rand(T, K, generator=g, device=dev)
    top = vals[:, K:K + 1] + torch.flip(torch.cumsum(gaps, dim=1), dims=[1])  # descending
    x.scatter_(1, order[:, :K], top)
    if case.get("outliers"):
        # one row in four 30x larger (logits over 100): exp() overflows without max-subtraction
        x[::4] *= 30
    if case.get("negative_rows"):
        # every third row below zero throughout (shifted, so its order and gaps stay)
        x[1::3] -= x[1::3].amax(dim=1, keepdim=True) + 0.5
    return x.to(dtype).to(dev), K
