"""Reductions broken: the max-subtraction of a softmax removed (always, or on odd sizes only),
sum and mean confused, the accumulator's dtype lowered (to float16 or bfloat16)."""
import ast

from ..triton_ast import (bound_comparisons, dotted_name, is_tl_call, jit_functions, names_derived_from, upper_bound,
                          walk_in_order)
from .base import Operator, fresh, kernel_nodes, tl_attr


def max_subtractions(function: ast.FunctionDef):
    """`x - M` where M is a tl.max (or tl.maximum) or a name computed from one: the shift that
    keeps exp() from overflowing."""
    is_max = lambda n: is_tl_call(n, "max", "maximum")
    derived = names_derived_from(function, is_max)
    for node in walk_in_order(function):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            right = node.right
            if is_max(right) or (isinstance(right, ast.Name) and right.id in derived):
                yield node


class MaxSubtractionRemoved(Operator):
    name = "max_subtraction_removed"
    models = "a softmax without the max shift: `x - tl.max(x)` becomes `x` (exp overflows)"

    def mutations(self, tree):
        for function in jit_functions(tree):
            for node in max_subtractions(function):
                yield node, fresh(node.left)


class MaxSubtractionSkippedOnOddSizes(Operator):
    name = "max_subtraction_skipped_on_odd_sizes"
    models = "the max shift taken only on even sizes: `x - M` becomes `x - tl.where(n % 2 == 1, 0.0, M)`"

    def mutations(self, tree):
        for function in jit_functions(tree):
            bounds = [upper_bound(c) for c in bound_comparisons(function)]
            sizes = [b for b in bounds if isinstance(b, ast.Name)]
            if not sizes:
                continue
            odd = ast.Compare(left=ast.BinOp(left=ast.Name(id=sizes[0].id, ctx=ast.Load()), op=ast.Mod(),
                                             right=ast.Constant(2)), ops=[ast.Eq()], comparators=[ast.Constant(1)])
            for node in max_subtractions(function):
                shift = ast.Call(func=tl_attr("where"), args=[odd, ast.Constant(0.0), fresh(node.right)], keywords=[])
                yield node, ast.BinOp(left=fresh(node.left), op=ast.Sub(), right=shift)


class SumToMean(Operator):
    name = "sum_to_mean"
    models = "a mean where a sum was meant: `tl.sum(x, axis=a)` becomes `tl.sum(x, axis=a) / x.shape[a]`"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if is_tl_call(node, "sum") and node.args:
                axis = node.args[1] if len(node.args) > 1 else next(
                    (k.value for k in node.keywords if k.arg == "axis"), ast.Constant(0))
                count = ast.Subscript(value=ast.Attribute(value=fresh(node.args[0]), attr="shape", ctx=ast.Load()),
                                      slice=fresh(axis), ctx=ast.Load())
                yield node, ast.BinOp(left=fresh(node), op=ast.Div(), right=count)


class MeanToSum(Operator):
    name = "mean_to_sum"
    models = "a sum where a mean was meant: `tl.sum(x) / n` becomes `tl.sum(x)`"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and is_tl_call(node.left, "sum"):
                yield node, fresh(node.left)


class AccumulatorLowered(Operator):
    name = "accumulator_lowered"
    models = "float32 math done in float16: `tl.float32` of an accumulator or a `.to()` lowered"
    lowered_to = "float16"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if not isinstance(node, ast.Call):
                continue
            is_cast = isinstance(node.func, ast.Attribute) and node.func.attr == "to"
            if not (is_cast or is_tl_call(node, "zeros", "full", "zeros_like", "full_like")):
                continue
            for arg in list(node.args) + [k.value for k in node.keywords]:
                if dotted_name(arg) in ("tl.float32", "triton.language.float32"):
                    yield arg, tl_attr(self.lowered_to)


class AccumulatorBfloat16(AccumulatorLowered):
    name = "accumulator_bfloat16"
    models = "float32 math done in bfloat16 (8 bits of mantissa): `tl.float32` of an accumulator or a `.to()` lowered"
    lowered_to = "bfloat16"
