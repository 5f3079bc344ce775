"""The values of the differential check: make_inputs' draw, then bent to an extreme.

Each regime changes only the first floating-point tensor the task's make_inputs returns (the
`x` of nearly every task), in float32, then rounds it back to its dtype and keeps its strides.
The golden decides whether a regime is in the task's domain: where it disagrees with the
reference the trial is skipped, not held against the mutant.
"""
import torch

REGIMES = ("as_drawn", "large", "shifted", "edge_outliers", "tiny", "zeros", "neg_inf_row")


def _large(x):
    return x * 100.0


def _shifted(x):
    return x + 60.0  # a common offset: cancellation, exp overflow without the max shift


def _edge_outliers(x):
    # one dominant value at the first and at the last position of every row: a kernel that drops
    # or shifts an edge element (or one block's worth) of a wide row shows it
    y = x.clone()
    if y.dim() == 0 or y.shape[-1] == 0:
        return y
    y[..., 0] += 40.0
    y[..., -1] -= 40.0
    return y


def _tiny(x):
    return x * 1e-30  # float32 denormals near the bottom; zeros in float16/bfloat16


def _zeros(x):
    return torch.zeros_like(x)


def _neg_inf_row(x):
    y = x.clone()
    if y.dim() >= 2 and y.shape[0] > 0:
        y[y.shape[0] // 2] = -float("inf")
    elif y.numel():
        y.view(-1)[0] = -float("inf")
    return y


BENDS = {"large": _large, "shifted": _shifted, "edge_outliers": _edge_outliers, "tiny": _tiny,
         "zeros": _zeros, "neg_inf_row": _neg_inf_row}


def bend(args: tuple, regime: str) -> tuple:
    """args with the first floating tensor bent by the regime (as_drawn: unchanged)."""
    if regime == "as_drawn":
        return args
    args = list(args)
    for i, arg in enumerate(args):
        if isinstance(arg, torch.Tensor) and arg.is_floating_point():
            bent = BENDS[regime](arg.detach().to(torch.float32))
            out = arg.detach().clone()
            out.copy_(bent.to(arg.dtype))
            args[i] = out
            break
    return tuple(args)
