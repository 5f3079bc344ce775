import torch


def reference(logits, temperature, top_k):
    vals, idx = torch.topk(logits.float(), top_k, dim=-1)
    out = torch.full(logits.shape, float("-inf"), dtype=torch.float32, device=logits.device)
    out.scatter_(1, idx, vals / temperature[:, None])
    return out


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, V, K = case["B"], case["V"], case["K"]
    x = 2 * torch.randn(B, V, generator=g, device=dev)
    if case.get("outliers"):
        x[0::4] += 500  # large offsets: bfloat16 steps of 2-4 near the top
        x[1::4] *= 30   # wide rows: logits up to ~200
    if case.get("negative"):
        x -= 500  # every logit negative, the top_k-th largest too
    x = x.to(dtype).float()
    # a clear boundary: every value below the top_k-th largest t is pushed to at most
    # t - (0.05 + 3% of |t|), so the top_k set is unique whatever the rounding
    vals, idx = torch.sort(x, dim=1, descending=True)
    t = vals[:, K - 1:K]
    cap = t - (0.05 + 0.03 * t.abs()) - 0.01 * torch.rand(B, 1, generator=g, device=dev)
    vals[:, K:] = torch.minimum(vals[:, K:], cap)
    x.scatter_(1, idx, vals)
    # ~1% of each row already masked to -inf by an earlier processor (never in the top_k)
    masked = (torch.rand(B, V, generator=g, device=dev) < 0.01) & (x < cap)
    x[masked] = float("-inf")
    temperature = 0.5 + torch.rand(B, generator=g, device=dev)
    return x.to(dtype).to(dev), temperature.to(dev), K
