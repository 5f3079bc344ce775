"""`keval dataset import`: makora rows -> submissions of the KernelBench-format adapter.

Each row's `x` holds a problem (class Model, get_inputs, get_init_inputs) and a candidate
(class ModelNew and its Triton kernels). The problem part becomes a KernelBench problem file,
one per distinct problem, in a KernelBench-layout folder (`PROBLEMS/KernelBench/level1/`), so
`keval run --suite kernelbench:PROBLEMS:1 --submissions OUT.jsonl` re-times the rows. Only the
names Model and get_inputs/get_init_inputs reach (imports, constants, helpers) go into the
problem file: the candidate's code never runs in the reference's process.
"""

import ast
import hashlib
import json
import math
import os
import random

from .errors import DatasetError
from .tables import column_names, read_rows

PROBLEM_ROOTS = ("Model", "get_inputs", "get_init_inputs")


def check_columns(path: str) -> list:
    names = column_names(path)
    if "x" not in names:
        raise DatasetError(path, "field `x`: no such column (a makora dataset has x, y"
                                 " and, in test, problem_id and holdout_group)")
    return names


def check_y(path: str, rows: list) -> None:
    for index, row in enumerate(rows):
        y = row.get("y")
        if y is None:
            continue
        if isinstance(y, bool) or not isinstance(y, (int, float)) or math.isnan(float(y)):
            raise DatasetError(path, f"field `y` (row {index}): {y!r} is not a number")


def _names_used(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
           {n.value.id for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}


def _defined(node) -> set:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def problem_source(x: str):
    """The problem part of `x` (None when x does not parse or has no class Model)."""
    try:
        module = ast.parse(x)
    except (SyntaxError, ValueError):
        return None
    body = module.body
    if not any(isinstance(n, ast.ClassDef) and n.name == "Model" for n in body):
        return None
    wanted, keep = set(PROBLEM_ROOTS), set()
    changed = True
    while changed:  # the names the roots reach, through module-level definitions
        changed = False
        for index, node in enumerate(body):
            if index in keep or not (_defined(node) & wanted):
                continue
            if isinstance(node, ast.ClassDef) and node.name == "ModelNew":
                continue
            keep.add(index)
            wanted |= _names_used(node)
            changed = True
    return "\n\n".join(ast.get_source_segment(x, body[i]) for i in sorted(keep)) + "\n"


def problem_key(row: dict, source: str) -> str:
    if row.get("problem_id") not in (None, ""):
        return str(row["problem_id"])
    return hashlib.sha256(source.encode()).hexdigest()[:12]


def snake(text: str) -> str:
    import re

    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", text.lower())).strip("_")


def import_rows(path: str, out: str, problems: str, sample: int, seed: int) -> dict:
    check_columns(path)
    rows = read_rows(path)
    check_y(path, rows)
    indices = list(range(len(rows)))
    if sample and sample < len(rows):
        indices = sorted(random.Random(seed).sample(indices, sample))
    level = os.path.join(problems, "KernelBench", "level1")
    os.makedirs(level, exist_ok=True)
    numbers, skipped, written = {}, 0, 0
    with open(out, "w", encoding="utf-8") as subs:
        for index in indices:
            row = rows[index]
            x = row.get("x")
            source = problem_source(x) if isinstance(x, str) else None
            if source is None:
                skipped += 1
                continue
            key = problem_key(row, source)
            if key not in numbers:
                numbers[key] = len(numbers) + 1
                with open(os.path.join(level, f"{numbers[key]}_makora_{snake(key)}.py"), "w") as f:
                    f.write(source)
            task = f"l1_{numbers[key]}_makora_{snake(key)}"
            subs.write(json.dumps({"task": task, "code": x, "id": f"makora-{index}",
                                   "makora_y": row.get("y")}) + "\n")
            written += 1
    return {"rows": len(rows), "submissions": written, "problems": len(numbers),
            "skipped_no_model": skipped, "problems_dir": problems, "out": out}
