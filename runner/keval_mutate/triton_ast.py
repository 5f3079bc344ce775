"""What the operators ask of a kernel's syntax tree: which functions are Triton kernels, which
calls are `tl.X(...)`, which names and comparisons feed a mask, which constants a node holds."""
import ast
import math
from typing import Iterator, Optional


def is_jit_function(node: ast.AST) -> bool:
    """A function decorated with triton.jit (or jit, or triton.jit(...)), possibly under
    triton.autotune/heuristics."""
    if not isinstance(node, ast.FunctionDef):
        return False
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if dotted_name(target) in ("triton.jit", "jit", "tl.jit"):
            return True
    return False


def jit_functions(tree: ast.Module) -> list:
    return [node for node in walk_in_order(tree) if is_jit_function(node)]


def dotted_name(node: ast.AST) -> str:
    """`tl.program_id` for the expression tl.program_id; "" for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def is_tl_call(node: ast.AST, *names: str) -> bool:
    """A call of tl.NAME or triton.language.NAME for one of `names`."""
    if not isinstance(node, ast.Call):
        return False
    name = dotted_name(node.func)
    return any(name in (f"tl.{n}", f"triton.language.{n}") for n in names)


def keyword(call: ast.Call, name: str) -> Optional[ast.keyword]:
    return next((k for k in call.keywords if k.arg == name), None)


def constant_value(node: ast.AST) -> Optional[float]:
    """The number a constant expression stands for: 1.5, -2, float("inf"), -float("inf"),
    math.inf; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = constant_value(node.operand)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Call) and dotted_name(node.func) == "float" and len(node.args) == 1:
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            try:
                return float(arg.value)
            except ValueError:
                return None
    if dotted_name(node) in ("math.inf", "float.inf"):
        return math.inf
    return None


def walk_in_order(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below `node`, depth first in source order (ast.walk is breadth first), so a
    mutant's site number reads top to bottom."""
    yield node
    for child in ast.iter_child_nodes(node):
        yield from walk_in_order(child)


def mask_expressions(function: ast.FunctionDef) -> list:
    """The expressions a kernel uses as masks: `mask=` of tl.load/tl.store and the condition of
    tl.where, plus, for a name used there, every value assigned to that name."""
    direct = []
    for node in walk_in_order(function):
        if is_tl_call(node, "load", "store"):
            k = keyword(node, "mask")
            if k is not None:
                direct.append(k.value)
        elif is_tl_call(node, "where") and node.args:
            direct.append(node.args[0])
    return with_assigned_values(function, direct)


def with_assigned_values(function: ast.FunctionDef, direct: list) -> list:
    """`direct`, then every value `function` assigns to a name used in one of them."""
    names = {n.id for expression in direct for n in ast.walk(expression) if isinstance(n, ast.Name)}
    assigned = [node.value for node in walk_in_order(function)
                if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets)]
    return direct + assigned


def bound_comparisons(function: ast.FunctionDef) -> list:
    """The comparisons `a < b` (or `b > a`) inside a mask expression: the bounds checks."""
    found, seen = [], set()
    for expression in mask_expressions(function):
        for node in walk_in_order(expression):
            if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Lt, ast.Gt))
                    and id(node) not in seen):
                seen.add(id(node))
                found.append(node)
    return found


def upper_bound(compare: ast.Compare) -> ast.AST:
    """The bound of `offs < n` (n) or of `n > offs` (n)."""
    return compare.comparators[0] if isinstance(compare.ops[0], ast.Lt) else compare.left


def lower_side(compare: ast.Compare) -> ast.AST:
    return compare.left if isinstance(compare.ops[0], ast.Lt) else compare.comparators[0]


def names_derived_from(function: ast.FunctionDef, is_source) -> set:
    """Names whose value (through any chain of assignments in `function`) comes from an
    expression node for which `is_source(node)` holds."""
    assignments = [(t.id, node.value) for node in ast.walk(function)
                   if isinstance(node, (ast.Assign, ast.AugAssign)) for t in _targets(node) if isinstance(t, ast.Name)]
    derived = set()
    changed = True
    while changed:
        changed = False
        for name, value in assignments:
            if name in derived:
                continue
            if any(is_source(n) or (isinstance(n, ast.Name) and n.id in derived) for n in ast.walk(value)):
                derived.add(name)
                changed = True
    return derived


def _targets(node):
    return node.targets if isinstance(node, ast.Assign) else [node.target]
