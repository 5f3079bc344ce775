"""Which TritonBench-G gold files TritonBench's own G pre-processing breaks.

TritonBench's call stage (EVAL/eval_G/0_call_acc.py; reproduced in criterion.py's
`tritonbench_code`) keeps only a program's imports and `def`s. A gold file whose reference part
defines module-level names another way (classes, constants, autotune config lists, aliases)
and uses them loses them: run through that stage, the gold itself would fail with a NameError.
keval keeps the reference whole. This finds those files statically (nothing runs):

    python -m keval_adapters tritonbench-g preprocessing-check --source CHECKOUT [--out REPORT.json]
"""

import ast
import builtins
import json
import os

from ..common.peer_file import split_file
from .checkout import Checkout
from .criterion import tritonbench_code


def _assigned_names(node) -> set:
    names = set()
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
    return names


def module_level_names(tree: ast.Module) -> set:
    """Names a module binds at its top level other than by `def` or import."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            names |= _assigned_names(node)
    return names


def kept_names(tree: ast.Module) -> set:
    """What the pre-processed program still binds: every def (at any depth, as TritonBench
    hoists them) and every import."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def used_names(tree: ast.AST) -> set:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def lost_names(reference: str, test: str) -> list:
    """Names the pre-processed gold program uses (its own kept code or the test) that only the
    dropped module-level statements defined."""
    dropped = module_level_names(ast.parse(reference))
    kept_code = tritonbench_code(reference, "G")
    kept = ast.parse(kept_code)
    test_tree = ast.parse(test)
    needed = used_names(kept) | used_names(test_tree)
    bound_by_test = module_level_names(test_tree) | kept_names(test_tree)
    lost = (dropped & needed) - kept_names(kept) - bound_by_test - set(dir(builtins))
    return sorted(lost)


def check(source: str, out: str = None) -> int:
    checkout = Checkout(source, "G")
    broken, unreadable = {}, []
    files = checkout.files()
    for file in files:
        with open(os.path.join(checkout.data_dir, file), encoding="utf-8") as f:
            reference, test = split_file(f.read(), last=True)
        try:
            lost = lost_names(reference, test) if test is not None else None
        except SyntaxError:
            lost = None
        if lost is None:
            unreadable.append(file)
        elif lost:
            broken[file] = lost
    print(f"tritonbench-g: {len(broken)} of {len(files)} gold files lose names they use to TritonBench's "
          f"G pre-processing (imports and defs only); {len(unreadable)} not parsed")
    for file, names in sorted(broken.items()):
        print(f"  {file}: {', '.join(names)}")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            json.dump({"files": len(files), "broken": broken, "unreadable": unreadable}, f, indent=1)
    return 0
