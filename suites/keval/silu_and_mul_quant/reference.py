import torch
import torch.nn.functional as F

FP8_MAX = 448.0


def reference(gate_up):
    inter = gate_up.shape[1] // 2
    y = F.silu(gate_up[:, :inter].float()) * gate_up[:, inter:].float()
    scale = (y.abs().amax(dim=-1, keepdim=True) / FP8_MAX).clamp(min=1e-12)
    q = (y / scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q, scale


def _safe_for_fp8_rounding(gate, up, dtype):
    """Moves the up values of elements whose float8 rounding is fragile (gate, up: float32
    holding dtype values; y = silu(gate) * up).

    - y / scale within a relative 1e-4 of a rounding boundary (a tie): any float32
      formulation must land on the same side, so up is nudged by 3% toward zero (which never
      raises a row's maximum, so the scales stay put), until none is left;
    - rounding up into the next power of two (e.g. 125 -> 128) and landing in the float8
      subnormal range (|y / scale| < 2^-6): Triton's CPU interpreter gets these conversions
      wrong (it drops the carry into the exponent and truncates subnormals), so the former are
      nudged like ties and the latter get up = 0; on the GPU they would be fine.
    """
    s = F.silu(gate)
    y = s * up
    scale = (y.abs().amax(dim=-1, keepdim=True) / FP8_MAX).clamp(min=1e-12)
    uflat, sflat = up.view(-1), s.reshape(-1)
    cflat = scale.expand_as(y).reshape(-1)
    idx = None  # first pass: every element; later passes: only the ones just moved
    for _ in range(60):
        if idx is None:
            a = (y.view(-1) / cflat).abs().clamp(max=FP8_MAX)
        else:
            a = ((sflat[idx] * uflat[idx]) / cflat[idx]).abs().clamp(max=FP8_MAX)
        tiny = (a > 0) & (a < 2.0 ** -6)
        lo = (a * (1 - 1e-4)).to(torch.float8_e4m3fn).float()
        hi = (a * (1 + 1e-4)).clamp(max=FP8_MAX).to(torch.float8_e4m3fn).float()
        _, expo = torch.frexp(a * (1 - 1e-4))  # a*(1-1e-4) in [2^(expo-1), 2^expo)
        bad = ~tiny & (a > 0) & ((lo != hi) | (hi >= torch.ldexp(torch.ones_like(a), expo)))
        moved = tiny | bad
        where = moved.nonzero().view(-1) if idx is None else idx[moved]
        if where.numel() == 0:
            return up
        uflat[where] = torch.where(tiny[moved], 0.0, (uflat[where] * 0.97).to(dtype).float())
        idx = where
    raise RuntimeError("could not move the inputs away from the float8 rounding boundaries")


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, inter = case["T"], case["I"]
    gate = 2 * torch.randn(T, inter, generator=g, device=dev)
    up = 2 * torch.randn(T, inter, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the gate values near +-1000: exp(1000) overflows float32, and one huge y
        # makes the rest of its row quantise to small values
        flat = gate.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        sign = torch.randint(0, 2, (idx.numel(),), generator=g, device=dev) * 2 - 1
        flat[idx] = sign * (900 + 100 * torch.rand(idx.numel(), generator=g, device=dev))
    if case.get("edge_peaks"):
        # y ~ 144 at each row's first column, far above the rest of the row
        gate[:, 0] = 12.0
        up[:, 0] = 12.0
    gate = gate.to(dtype).float()
    up = _safe_for_fp8_rounding(gate, up.to(dtype).float(), dtype)
    if case.get("zero_row"):
        # y = 0 across a row: the scale is the 1e-12 floor
        up[T // 3] = 0.0
    return (torch.cat((gate, up), dim=1).to(dtype).to(dev),)
