import torch


def reference(x):
    return x.argmax(dim=-1)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    if case.get("coarse"):
        # four levels: each row's maximum fills about a quarter of it, in the same lanes of
        # every chunk of a wide row
        x = torch.randint(-2, 2, (rows, cols), generator=g, device=dev).float()
    elif case.get("ties"):
        # multiples of 1/16 in [-8, 8): exact in every dtype, and each row's maximum occurs
        # several times, spread over the row (also across chunks of wide rows)
        x = torch.randint(-128, 128, (rows, cols), generator=g, device=dev).float() / 16
    else:
        # plain logits (a greedy-decoding argmax): ties still occur after rounding to 16 bits
        x = 3 * torch.randn(rows, cols, generator=g, device=dev)
    # every fourth row entirely negative: masked lanes padded with 0 would win
    x[1::4] = -(x[1::4].abs() + 0.25)
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    if case.get("tiny"):
        # a power of two keeps every value (and tie) exact in float32 and bfloat16, all normal
        x = x * 2.0**-100
    return (x.to(dtype).to(dev),)
