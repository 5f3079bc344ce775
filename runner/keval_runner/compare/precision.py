"""What lower-precision arithmetic does to a case's reference output, measured for the
controller's precision policy (src/judge/precision_check.h, docs/judging.md "Precision").

For each precision a case lists (`lower_precisions`, planned by the controller for the float32
cases of a task that computes in float32 or TF32), the reference runs again on fresh inputs whose
float32 tensors are rounded to that precision (and held in float32), and its error against the
reference's own output is measured as the candidate's is: mean |low - ref| / mean |ref|
(compare.mean_relative_error). Rounding the inputs is the least a kernel computing in that
precision does; an output whose error reaches that size is one only a lower precision explains.

  tf32      float32 with a 10-bit mantissa, rounded to nearest even (cuBLAS's conversion)
  tf32_rz   the same, truncated: how tensor cores read float32 operands (Triton's tl.dot)
  float16   float16 and back: its range too (an overflow gives an infinite error)
  bfloat16  bfloat16 and back
"""

import torch

from .compare import as_output_list, mean_relative_error

# The low 13 of float32's 23 mantissa bits, which TF32 drops.
TF32_DROPPED_BITS = 13


def _tf32(t: torch.Tensor, truncate: bool) -> torch.Tensor:
    bits = t.view(torch.int32)
    if not truncate:
        # to nearest, ties to even: add half of the dropped unit less one, plus the kept lowest bit
        half = (1 << (TF32_DROPPED_BITS - 1)) - 1
        bits = bits + half + ((bits >> TF32_DROPPED_BITS) & 1)
    rounded = (bits & ~((1 << TF32_DROPPED_BITS) - 1)).view(torch.float32)
    return torch.where(torch.isfinite(t), rounded, t)  # NaN and infinities as they were


def round_to(t: torch.Tensor, precision: str) -> torch.Tensor:
    """A float32 tensor rounded to `precision`, still float32 (a new tensor); others unchanged."""
    if not isinstance(t, torch.Tensor) or t.dtype != torch.float32:
        return t
    if precision in ("tf32", "tf32_rz"):
        return _tf32(t.contiguous(), truncate=precision == "tf32_rz").reshape(t.shape)
    if precision == "float16":
        return t.to(torch.float16).to(torch.float32)
    if precision == "bfloat16":
        return t.to(torch.bfloat16).to(torch.float32)
    raise ValueError(f"unknown lower precision {precision!r}")


def rounded_args(args, precision: str):
    """The call's arguments with every float32 tensor rounded (in lists and tuples too)."""
    if isinstance(args, torch.Tensor):
        return round_to(args, precision)
    if isinstance(args, (list, tuple)):
        return type(args)(rounded_args(a, precision) for a in args)
    return args


def lower_precision_errors(reference, fresh_args, refs: list, precisions: list) -> list:
    """Per output of refs, {precision: error} for the float32 outputs (None for the others).
    `fresh_args()` builds the case's inputs again (the first call may have changed them);
    `reference(*args)` returns the outputs in the order of refs."""
    errors = [{} if ref.dtype == torch.float32 else None for ref in refs]
    if not any(e is not None for e in errors):
        return errors
    for precision in precisions:
        with torch.no_grad():
            lows = as_output_list(reference(*rounded_args(fresh_args(), precision)))
        for index, ref in enumerate(refs):
            if errors[index] is None:
                continue
            low = lows[index] if index < len(lows) else None
            same = isinstance(low, torch.Tensor) and low.shape == ref.shape and low.dtype.is_floating_point
            errors[index][precision] = mean_relative_error(low, ref) if same else None
        del lows
    return errors
