"""A tensor's layout misread: two strides swapped at the launch, a row-major index transposed."""
import ast

from ..triton_ast import dotted_name, is_tl_call, jit_functions, walk_in_order, with_assigned_values
from .base import Operator, fresh, host_nodes


def stride_call_axis(node: ast.AST):
    """The axis of `t.stride(AXIS)` (a constant), else None."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "stride"
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
            and type(node.args[0].value) is int):
        return node.args[0].value
    return None


class StrideSwapped(Operator):
    name = "stride_swapped"
    models = "two strides of a tensor swapped at the launch: `t.stride(0), t.stride(1)` passed as `t.stride(1), t.stride(0)`"
    host = True

    def mutations(self, tree):
        for node in host_nodes(tree):
            if not isinstance(node, ast.Call):
                continue
            where = {}  # (tensor, axis) -> position among the call's arguments
            for i, arg in enumerate(node.args):
                axis = stride_call_axis(arg)
                if axis is not None:
                    where[(ast.dump(arg.func.value), axis)] = i
            for (tensor, axis), i in where.items():
                j = where.get((tensor, axis + 1))
                if j is None:
                    continue
                swapped = fresh(node)
                swapped.args[i], swapped.args[j] = swapped.args[j], swapped.args[i]
                yield node, swapped


def is_scaled(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)


def is_sum(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)


def terms(node: ast.AST) -> list:
    """The terms of a chain of `+`, left to right: (p + r * S) + c gives [p, r * S, c]."""
    return terms(node.left) + terms(node.right) if is_sum(node) else [node]


def address_expressions(function: ast.FunctionDef) -> list:
    """The pointers of tl.load/tl.store, and every value assigned to a name used in one (the
    offsets a kernel computes before it addresses memory)."""
    pointers = [node.args[0] for node in walk_in_order(function) if is_tl_call(node, "load", "store") and node.args]
    return with_assigned_values(function, pointers)


def is_column(node: ast.AST) -> bool:
    # a constant (+ 1) or a base pointer is no column; r * S + c * T is strided both ways already
    return not (is_scaled(node) or isinstance(node, ast.Constant) or dotted_name(node).endswith("_ptr"))


class IndexTransposed(Operator):
    name = "index_transposed"
    models = "a row-major index read column-major: `p + r * S + c` becomes `p + r + c * S`"

    def mutations(self, tree):
        for function in jit_functions(tree):
            for expression in address_expressions(function):
                if not is_sum(expression):
                    continue
                parts = terms(expression)
                scaled = [i for i, t in enumerate(parts) if is_scaled(t)]
                columns = [i for i, t in enumerate(parts) if is_column(t)]
                if len(scaled) != 1 or not columns:
                    continue
                row, column = scaled[0], columns[-1]
                stride = parts[row].right
                swapped = [fresh(t) for t in parts]
                swapped[row] = fresh(parts[row].left)
                swapped[column] = ast.BinOp(left=fresh(parts[column]), op=ast.Mult(), right=fresh(stride))
                chain = swapped[0]
                for term in swapped[1:]:
                    chain = ast.BinOp(left=chain, op=ast.Add(), right=term)
                yield expression, chain
