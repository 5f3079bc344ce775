"""Masks dropped, weakened, flipped or taken only on some sizes; `other=` of a masked load swapped."""
import ast
import math

from ..triton_ast import bound_comparisons, constant_value, is_tl_call, jit_functions, keyword, lower_side, upper_bound
from .base import Operator, fresh, kernel_nodes, size_parity


class MaskDropped(Operator):
    name = "mask_dropped"
    models = "a load or store without its bounds mask (mask= and other= removed)"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if is_tl_call(node, "load", "store") and keyword(node, "mask") is not None:
                call = fresh(node)
                call.keywords = [k for k in call.keywords if k.arg not in ("mask", "other")]
                yield node, call


class MaskWeakened(Operator):
    name = "mask_weakened"
    models = "an off-by-one bounds check: `<` becomes `<=` (`>` becomes `>=`) in a mask"

    def mutations(self, tree):
        for function in jit_functions(tree):
            for compare in bound_comparisons(function):
                weaker = fresh(compare)
                weaker.ops = [ast.LtE() if isinstance(compare.ops[0], ast.Lt) else ast.GtE()]
                yield compare, weaker


class MaskDeadOnOddSizes(Operator):
    name = "mask_dead_on_odd_sizes"
    models = "a branch that does the work only when the size is even: `m` becomes `m & (n even)`"

    def mutations(self, tree):
        for function in jit_functions(tree):
            for compare in bound_comparisons(function):
                even = size_parity(upper_bound(compare), lower_side(compare), 0)
                yield compare, ast.BinOp(left=fresh(compare), op=ast.BitAnd(), right=even)


class UnmaskedOnEvenSizes(Operator):
    name = "unmasked_on_even_sizes"
    models = "a kernel that assumes an even size is a multiple of its block: `m` becomes `m | (n even)`"

    def mutations(self, tree):
        for function in jit_functions(tree):
            for compare in bound_comparisons(function):
                even = size_parity(upper_bound(compare), lower_side(compare), 0)
                yield compare, ast.BinOp(left=fresh(compare), op=ast.BitOr(), right=even)


class OtherSwapped(Operator):
    name = "other_swapped"
    models = "the wrong fill for masked-off lanes: `other=0` and `other=-inf` swapped"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if not is_tl_call(node, "load"):
                continue
            other = keyword(node, "other")
            value = constant_value(other.value) if other is not None else None
            if value == 0.0:
                yield other.value, ast.UnaryOp(op=ast.USub(), operand=ast.Call(
                    func=ast.Name(id="float", ctx=ast.Load()), args=[ast.Constant("inf")], keywords=[]))
            elif value is not None and math.isinf(value):
                yield other.value, ast.Constant(0.0)
