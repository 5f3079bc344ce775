"""What the hardware would make of a row, without a GPU: the problem's FLOPs and bytes (the task's
`flops` and `bytes` expressions over the case's shapes), the roofline time on an H200, and the
launch's grid against the machine (programs per SM, waves, threads). The rows' tuning constants
come from features.py; here they meet the problem's size."""

import ast
import json
import math
import operator
import os
import tomllib

from .task_sources import REPO

SMS = 132  # H200
PEAK_BYTES_PER_S = 4.8e12
PEAK_FLOPS = {"tensor16": 989e12, "tensor8": 1979e12, "tf32": 494e12, "simt32": 67e12, "simt16": 134e12}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow, ast.Mod: operator.mod}
_cache = {}


def arithmetic(expression: str, names: dict):
    """The value of an arithmetic expression over `names` (None when it is anything else)."""
    def value(node):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("max", "min"):
            return (max if node.func.id == "max" else min)(*(value(a) for a in node.args))
        raise ValueError(ast.dump(node))

    try:
        return float(value(ast.parse(expression, mode="eval")))
    except (KeyError, ValueError, SyntaxError, ZeroDivisionError, TypeError, OverflowError):
        return None


def task_toml(suite: str, task: str):
    key = (suite, task)
    if key not in _cache:
        path = os.path.join(REPO, "suites", suite or "keval", task or "", "task.toml")
        _cache[key] = None
        if task and os.path.exists(path):
            with open(path, "rb") as f:
                _cache[key] = tomllib.load(f)
    return _cache[key]


def shapes_of(row: dict) -> dict:
    shapes = row.get("shapes")
    if isinstance(shapes, str):
        try:
            shapes = json.loads(shapes)
        except json.JSONDecodeError:
            return {}
    return {k: v for k, v in shapes.items() if isinstance(v, (int, float))} if isinstance(shapes, dict) else {}


def _log2(value) -> float:
    return math.log2(value) if value and value > 0 else 0.0


def work_features(row: dict, base: dict) -> dict:
    """Problem-size and roofline features; `base` is features.py's dict of the same row."""
    toml = task_toml(row.get("suite"), row.get("task")) or {}
    names = dict(shapes_of(row), elem=base["elem_bytes"])
    flops = arithmetic(str(toml.get("flops", "")), names) if toml.get("flops") else None
    moved = arithmetic(str(toml.get("bytes", "")), names) if toml.get("bytes") else None
    sixteen = base["elem_bytes"] <= 2
    if base["dots"] > 0:
        peak = PEAK_FLOPS["tensor8" if base["elem_bytes"] == 1 else "tensor16" if sixteen else "tf32"]
    else:
        peak = PEAK_FLOPS["simt16" if sixteen else "simt32"]
    compute_s = (flops or 0.0) / peak
    memory_s = (moved or 0.0) / PEAK_BYTES_PER_S
    roofline_ms = max(compute_s, memory_s) * 1e3
    threads = 32 * 2 ** base["warps_min_log2"]
    programs = 2 ** base["programs_log2"]
    out = {
        "flops_log2": _log2(flops), "bytes_log2": _log2(moved), "has_work_model": float(moved is not None),
        "intensity_log2": _log2(flops) - _log2(moved) if flops and moved else 0.0,
        "roofline_ms_log2": _log2(roofline_ms * 1e3) if roofline_ms > 0 else 0.0,  # in microseconds
        "memory_bound": float(memory_s >= compute_s),
        "waves_log2": _log2(programs / SMS),
        "threads_log2": _log2(threads),
        "bytes_per_program_log2": _log2((moved or 0.0) / programs) if programs else 0.0,
        "bytes_per_thread_log2": _log2((moved or 0.0) / (programs * threads)) if programs else 0.0,
        "tail_fraction": (programs / SMS) % 1.0,
    }
    return out
