import torch

PAGE = 16


def reference(key, value, k_cache, v_cache, slot_mapping):
    # works on copies: the oracle leaves its inputs as they were
    k_out, v_out = k_cache.clone(), v_cache.clone()
    keep = slot_mapping >= 0
    slots = slot_mapping[keep]
    k_out[slots // PAGE, slots % PAGE] = key[keep]
    v_out[slots // PAGE, slots % PAGE] = value[keep]
    return k_out, v_out


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, Hkv, D = case["T"], case["Hkv"], case["D"]
    num_blocks = 2 * ((T + PAGE - 1) // PAGE) + 3  # half of the slots stay untouched
    key = torch.randn(T, Hkv, D, generator=g, device=dev)
    value = torch.randn(T, Hkv, D, generator=g, device=dev)
    k_cache = torch.randn(num_blocks, PAGE, Hkv, D, generator=g, device=dev)
    v_cache = torch.randn(num_blocks, PAGE, Hkv, D, generator=g, device=dev)
    # distinct slots in random order, ~5% of the tokens are padding (-1)
    slot_mapping = torch.randperm(num_blocks * PAGE, generator=g, device=dev)[:T]
    pad = torch.rand(T, generator=g, device=dev) < 0.05
    slot_mapping[pad] = -1
    if case.get("outliers"):
        # ~1% of the new keys/values 1e4 times larger (the copy must be bit-exact anyway)
        for x in (key, value):
            flat = x.view(-1)
            idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
            flat[idx] *= 1e4
    return (key.to(dtype).to(dev), value.to(dtype).to(dev), k_cache.to(dtype).to(dev),
            v_cache.to(dtype).to(dev), slot_mapping.to(dev))
