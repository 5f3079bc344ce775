"""The values of the differential check: make_inputs' draw, then bent to an extreme.

A regime is a magnitude and a placement, mixed: the regimes that found real survivors are never
alone (bfloat16 values past float16's 65504 also hold the row's extreme at its first column).
A regime bends the floating-point tensors a trial names (`which`): the first one make_inputs
returns (the `x` of nearly every task), the k-th, or all of them (fused_add_rms_norm's residual,
its second input, past float16's range was never bent while only the first was), each viewed as
rows of its last dimension, in float32, then rounded back to its dtype with its strides kept.
One regime puts a whole row and a whole column far below zero (-200: exp underflows to 0, so a
maximum padded with 0 instead of -inf gives 0 / 0), for reductions along either. The golden
decides whether a regime is in the task's domain: where it disagrees with the reference the
trial is skipped, not held against the mutant.
"""
import torch

# magnitude, then placement: differential.trials_of runs every one on every small case and dtype
REGIMES = ("as_drawn", "large", "shifted", "peak_first", "peak_last", "huge_peak_first", "huge_peak_last",
           "denormal", "denormal_peak_first", "zeros", "zeros_peak_last", "neg_inf_row", "mixed_rows",
           "negative_row_and_column")
FIRST, ALL = "first", "all"  # which floating inputs a trial bends (or k: the k-th, from 0)
FAR_BELOW = -200.0  # exp of it is 0 in every float dtype


def huge_scale(dtype: torch.dtype) -> float:
    # past float16's 65504 where the dtype holds it (bfloat16, float32): a float16 conversion
    # or accumulator shows as inf; float16 itself only as large as it stays finite
    return 1e3 if dtype == torch.float16 else 1e5


def denormal_scale(dtype: torch.dtype) -> float:
    # below the dtype's smallest normal (float16 6.1e-5; bfloat16 and float32 1.2e-38)
    return 1e-6 if dtype == torch.float16 else 1e-39


def _rows(y):
    return y.view(-1, y.shape[-1]) if y.dim() >= 1 and y.numel() else None


def _peak(y, column: int, sign: float):
    """y with one dominant value per row at `column`, +/- alternating by row (the row's maximum
    on even rows, its minimum on odd rows; both signs of abs-max)."""
    rows = _rows(y)
    if rows is None:
        return y
    size = rows.abs().nan_to_num(posinf=0.0).amax(dim=1) * 2 + 1
    signs = torch.where(torch.arange(rows.shape[0]) % 2 == 0, sign, -sign)
    rows[:, column] = signs * size
    return y


def _neg_inf_row(y):
    rows = _rows(y)
    if rows is not None:
        rows[rows.shape[0] // 2] = -float("inf")
    return y


def _negative_row_and_column(y):
    """The middle row, and column 0 of every row, far below zero: a reduction along the last
    dimension (softmax_wide's rows) or the first ones (softmax_dim0's columns) whose maximum
    starts at 0 sees one whole line of it underflow, whichever it reduces along."""
    rows = _rows(y)
    if rows is not None:
        rows[rows.shape[0] // 2] += FAR_BELOW
        rows[:, 0] += FAR_BELOW
    return y


def _mixed_rows(y, dtype):
    """Row r: a row of zeros, of -inf, huge with its extreme first, denormal, as drawn (r mod 5)."""
    rows = _rows(y)
    if rows is None:
        return y
    for r in range(rows.shape[0]):
        kind = r % 5
        if kind == 0:
            rows[r] = 0.0
        elif kind == 1:
            rows[r] = -float("inf")
        elif kind == 2:
            rows[r] *= huge_scale(dtype)
            _peak(rows[r:r + 1], 0, 1.0)
        elif kind == 3:
            rows[r] *= denormal_scale(dtype)
    return y


def bent(x, regime: str, dtype: torch.dtype):
    """x (float32, a copy) bent by the regime."""
    if regime == "large":
        return x * 100.0
    if regime == "shifted":
        return x + 60.0  # a common offset: cancellation, exp overflow without the max shift
    if regime == "peak_first":
        return _peak(x, 0, 1.0)  # a chunk loop that skips column 0 misses the row's extreme
    if regime == "peak_last":
        return _peak(x, -1, -1.0)  # a tail mask that drops the last column
    if regime == "huge_peak_first":
        return _peak(x * huge_scale(dtype), 0, 1.0)
    if regime == "huge_peak_last":
        return _peak(x * huge_scale(dtype), -1, -1.0)
    if regime == "denormal":
        return x * denormal_scale(dtype)
    if regime == "denormal_peak_first":
        return _peak(x * denormal_scale(dtype), 0, 1.0)
    if regime == "zeros":
        return torch.zeros_like(x)
    if regime == "zeros_peak_last":
        return _peak(torch.zeros_like(x), -1, -1.0)  # one non-zero a row, in the last chunk
    if regime == "neg_inf_row":
        return _neg_inf_row(x)
    if regime == "mixed_rows":
        return _mixed_rows(x, dtype)
    if regime == "negative_row_and_column":
        return _negative_row_and_column(x)
    raise ValueError(f"unknown regime {regime!r}")


def targets(args: tuple, which=FIRST) -> list:
    """The positions in args of the floating tensors `which` names: FIRST, ALL, or k (the k-th
    floating tensor, counted modulo how many there are)."""
    floating = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.is_floating_point()]
    if not floating:
        return []
    if which == ALL:
        return floating
    return [floating[0 if which == FIRST else which % len(floating)]]


def bend(args: tuple, regime: str, which=FIRST) -> tuple:
    """args with the floating tensors `which` names (targets()) bent by the regime (as_drawn:
    unchanged)."""
    if regime == "as_drawn":
        return args
    args = list(args)
    for i in targets(tuple(args), which):
        arg = args[i]
        values = bent(arg.detach().to(torch.float32).contiguous().clone(), regime, arg.dtype)
        out = arg.detach().clone()
        out.copy_(values.to(arg.dtype))
        args[i] = out
    return tuple(args)
