"""Runs one exported `x` on its own, as a user of the dataset would: import it, call
Model()(*get_inputs()) and ModelNew()(*get_inputs()), compare the outputs.

    python run_row.py X.py ATOL RTOL

Prints one JSON line {"match": bool, "detail": str}; exit 0 when it ran (match or not), 1 when
the program failed to load or run. Run in a subprocess with TRITON_INTERPRET=1 for the CPU.
"""
import json
import runpy
import sys

import torch


def leaves(value):
    """The tensors and numbers of an output, in order (tuples, lists and dicts flattened)."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in leaves(value[key])]
    return [value]


def differs(ref, new, atol: float, rtol: float):
    """Why new is not ref within atol + rtol * |ref| (None when it is)."""
    if not isinstance(ref, torch.Tensor):
        return None if ref == new else f"{new!r} != {ref!r}"
    if not isinstance(new, torch.Tensor):
        return f"got {type(new).__name__}, expected a tensor"
    if new.shape != ref.shape or new.dtype != ref.dtype:
        return f"got {new.dtype}{tuple(new.shape)}, expected {ref.dtype}{tuple(ref.shape)}"
    r, n = ref.detach().cpu().double(), new.detach().cpu().double()
    if not torch.equal(r.isnan(), n.isnan()):
        return "NaN positions differ"
    r, n = r.nan_to_num(0.0, 0.0, 0.0), n.nan_to_num(0.0, 0.0, 0.0)
    over = (n - r).abs() > atol + rtol * r.abs()
    return f"{int(over.sum())} of {r.numel()} elements outside tolerance" if over.any() else None


def main(path: str, atol: float, rtol: float) -> int:
    program = runpy.run_path(path, run_name="keval_row")
    init = program["get_init_inputs"]()
    ref = program["Model"](*init)(*program["get_inputs"]())
    new = program["ModelNew"](*init)(*program["get_inputs"]())
    ref_leaves, new_leaves = leaves(ref), leaves(new)
    if len(ref_leaves) != len(new_leaves):
        detail = f"{len(new_leaves)} outputs, expected {len(ref_leaves)}"
    else:
        detail = next((d for d in (differs(r, n, atol, rtol) for r, n in zip(ref_leaves, new_leaves)) if d), None)
    print(json.dumps({"match": detail is None, "detail": detail or ""}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3])))
