import torch

FP8_MAX = 448.0


def reference(x):
    xf = x.float()
    scale = (xf.abs().amax(dim=-1, keepdim=True) / FP8_MAX).clamp(min=1e-12)
    q = (xf / scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, scale


def _safe_for_fp8_rounding(xf, dtype):
    """Moves elements whose float8 rounding is fragile; xf is float32 holding dtype values.

    - within a relative 1e-4 of a rounding boundary (a tie): any float32 formulation of
      x / scale must land on the same side, so these are nudged by 3% toward zero (which never
      raises a row's maximum, so the scales stay put), until none is left;
    - rounding up into the next power of two (e.g. 125 -> 128) and landing in the float8
      subnormal range (|x / scale| < 2^-6): Triton's CPU interpreter gets these conversions
      wrong (it drops the carry into the exponent and truncates subnormals), so the former are
      nudged like ties and the latter set to zero; on the GPU they would be fine.
    """
    scale = (xf.abs().amax(dim=-1, keepdim=True) / FP8_MAX).clamp(min=1e-12)
    flat, sflat = xf.view(-1), scale.expand_as(xf).reshape(-1)
    idx = None  # first pass: every element; later passes: only the ones just moved
    for _ in range(60):
        v = flat if idx is None else flat[idx]
        a = (v / (sflat if idx is None else sflat[idx])).abs().clamp(max=FP8_MAX)
        tiny = (a > 0) & (a < 2.0 ** -6)
        lo = (a * (1 - 1e-4)).to(torch.float8_e4m3fn).float()
        hi = (a * (1 + 1e-4)).clamp(max=FP8_MAX).to(torch.float8_e4m3fn).float()
        _, expo = torch.frexp(a * (1 - 1e-4))  # a*(1-1e-4) in [2^(expo-1), 2^expo)
        bad = ~tiny & (a > 0) & ((lo != hi) | (hi >= torch.ldexp(torch.ones_like(a), expo)))
        moved = tiny | bad
        where = moved.nonzero().view(-1) if idx is None else idx[moved]
        if where.numel() == 0:
            return xf
        flat[where] = torch.where(tiny[moved], 0.0, (flat[where] * 0.97).to(dtype).float())
        idx = where
    raise RuntimeError("could not move the inputs away from the float8 rounding boundaries")


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, H = case["T"], case["H"]
    x = torch.randn(T, H, generator=g, device=dev)
    x[T // 3] = 0.0  # an all-zero row: scale 1e-12, q = 0
    if case.get("outliers"):
        # a few values per row in a quarter of the rows 1000x larger: the rest of such a row
        # quantises to tiny and subnormal float8 values
        rows = torch.arange(0, T, 4, device=dev)
        cols = torch.randint(0, H, (rows.numel(), 3), generator=g, device=dev)
        x[rows[:, None], cols] *= 1e3
    if case.get("huge"):
        # a power of two: the same q, every scale 2**20 larger (bfloat16 only)
        x = x * 2.0**20
    if case.get("edge_peaks"):
        # each row's largest magnitude at its first or last column (the zero row stays zero)
        x[0::2, 0] = 8.0
        x[1::2, -1] = -8.0
        x[T // 3] = 0.0
    xf = _safe_for_fp8_rounding(x.to(dtype).float(), dtype)
    return (xf.to(dtype).to(dev),)
