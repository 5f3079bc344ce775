"""Static features of a program and its case for the baseline predictor: counts in the Triton
source (loads, stores, tl.dot, loops, reductions), its tuning constants (constexpr block sizes,
num_warps, num_stages: their extremes, and the first few in the order they appear, which is the
same launch by launch among the variants of one program), the shapes and the dtype; and the
problem's FLOPs, bytes, roofline time and launch grid (work_features.py). Read from the text
and the task's task.toml: nothing is run.

Triton (3.9) compiles a kernel for sm_90 to TTGIR, PTX and a cubin on a machine without a GPU,
but the kernel's signature (argument dtypes, specialisations) comes from running the program's
host code on real inputs; that is not done here yet (docs/dataset.md, "Baseline predictor").
"""

import json
import math
import re

from .makora_form import candidate_code
from .tuning_knobs import KNOB_RE, STAGES_RE, WARPS_RE
from .work_features import work_features

DTYPES = ("float32", "float16", "bfloat16", "float8", "int8")
ELEM_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float8": 1, "int8": 1}
COUNTED = {
    "loads": r"\btl\.load\(", "stores": r"\btl\.store\(", "dots": r"\btl\.dot\(",
    "atomics": r"\btl\.atomic_\w+\(", "reductions": r"\btl\.(sum|max|min|reduce|argmax|argmin|cumsum)\(",
    "transcendentals": r"\btl\.(exp|exp2|log|log2|sqrt|rsqrt|sin|cos|sigmoid)\(|\blibdevice\.",
    "wheres": r"\btl\.where\(", "kernels": r"@triton\.jit", "autotune": r"@triton\.autotune",
    "configs": r"\btriton\.Config\(", "for_loops": r"^\s*for\s", "while_loops": r"^\s*while\s",
    "static_range": r"\btl\.static_range\(", "constexpr": r"tl\.constexpr", "program_ids": r"\btl\.program_id\(",
    "torch_calls": r"\btorch\.(?!empty|zeros|ones|float|int|bfloat|Tensor|device|cuda|nn\b)\w+\(",
    "launches": r"\]\s*\(",
}
SHAPE_ASSIGN_RE = re.compile(r"^([a-z_][a-z0-9_]*)\s*=\s*(\d+)\s*$", re.M)
IN_ORDER = {"knob": 6, "warps": 3, "stages": 3}  # how many of each, in source order, are features


def _log2(value) -> float:
    return math.log2(value) if value and value > 0 else 0.0


def _numbers(values) -> list:
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]


def shape_numbers(row: dict) -> list:
    """The case's size symbols: the record's shapes, else (makora rows) the problem's module-level
    integer constants such as `batch_size = 16`."""
    shapes = row.get("shapes")
    if isinstance(shapes, str):
        try:
            shapes = json.loads(shapes)
        except json.JSONDecodeError:
            shapes = None
    if isinstance(shapes, dict):
        return _numbers(shapes.values())
    return _numbers(int(v) for _, v in SHAPE_ASSIGN_RE.findall(row.get("x") or ""))


def dtype_of(row: dict) -> str:
    dtype = row.get("dtype") or ""
    if not dtype:
        x = row.get("x") or ""
        for name in DTYPES:
            if f"torch.{name}" in x:
                return name
        return "float32"
    return dtype


def features(row: dict) -> dict:
    # the submitted code only: the problem part before it (keval's reference, Model, get_inputs)
    # is the same for every program of a problem, and its constants would shift the in-order ones
    x = candidate_code(row.get("x") or "")
    out = {name: float(len(re.findall(pattern, x, re.M))) for name, pattern in COUNTED.items()}
    out["lines"] = float(x.count("\n") + 1)
    knobs = [int(v) for _, v in KNOB_RE.findall(x)]
    warps = [int(v) for v in WARPS_RE.findall(x)]
    stages = [int(v) for v in STAGES_RE.findall(x)]
    out["block_max_log2"] = _log2(max(knobs, default=0))
    out["block_min_log2"] = _log2(min(knobs, default=0))
    out["block_sum_log2"] = sum(_log2(k) for k in knobs)
    out["num_warps"] = float(max(warps, default=4))
    out["num_stages"] = float(max(stages, default=0))
    out["warps_min_log2"] = _log2(min(warps, default=4))
    for name, values, scale in (("knob", knobs, _log2), ("warps", warps, _log2), ("stages", stages, float)):
        for i in range(IN_ORDER[name]):
            out[f"{name}_{i}"] = scale(values[i]) if i < len(values) else -1.0
    sizes = shape_numbers(row)
    out["shape_count"] = float(len(sizes))
    out["shape_log2_product"] = sum(_log2(s) for s in sizes)
    out["shape_log2_max"] = _log2(max(sizes, default=0))
    dtype = dtype_of(row)
    for name in DTYPES:
        out[f"dtype_{name}"] = 1.0 if dtype.startswith(name) else 0.0
    out["elem_bytes"] = float(next((b for n, b in ELEM_BYTES.items() if dtype.startswith(n)), 4))
    out["work_log2"] = out["shape_log2_product"] + _log2(out["elem_bytes"])
    out["programs_log2"] = max(0.0, out["shape_log2_product"] - out["block_max_log2"])
    out["block_over_shape_log2"] = out["block_max_log2"] - out["shape_log2_max"]
    out["elems_per_thread_log2"] = out["block_max_log2"] - _log2(32 * max(warps, default=4))
    out.update(work_features(row, out))
    return out


def matrix(rows: list):
    import numpy as np

    from .golden_distance import distance_features, golden_codes

    goldens = golden_codes(rows)
    table = [dict(features(r), **distance_features(candidate_code(r.get("x") or ""), goldens.get(r.get("task"))))
             for r in rows]  # once per row: each reads the program
    names = sorted(table[0]) if table else sorted(dict(features({"x": ""}), **distance_features("", None)))
    return np.array([[f[n] for n in names] for f in table], dtype=float), names
