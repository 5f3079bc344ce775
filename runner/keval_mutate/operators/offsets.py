"""Off-by-one offsets and swapped program ids."""
import ast

from ..triton_ast import is_tl_call, keyword
from .base import Operator, fresh, kernel_nodes


def plus_one(node: ast.AST) -> ast.BinOp:
    return ast.BinOp(left=fresh(node), op=ast.Add(), right=ast.Constant(1))


class OffsetPlusOne(Operator):
    name = "offset_plus_one"
    models = "an off-by-one address: `+ 1` added to the pointer of a load or store"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if is_tl_call(node, "load", "store") and node.args:
                yield node.args[0], plus_one(node.args[0])


class ArangeShifted(Operator):
    name = "arange_shifted"
    models = "a block's offsets starting at 1: `tl.arange(0, B)` becomes `tl.arange(0, B) + 1`"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if is_tl_call(node, "arange"):
                yield node, plus_one(node)


class ProgramIdSwapped(Operator):
    name = "program_id_swapped"
    models = "the grid's axes mixed up: `program_id(0)` and `program_id(1)` swapped"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if not is_tl_call(node, "program_id"):
                continue
            axis = node.args[0] if node.args else getattr(keyword(node, "axis"), "value", None)
            if isinstance(axis, ast.Constant) and axis.value in (0, 1):
                swapped = fresh(node)
                swapped.args, swapped.keywords = [ast.Constant(1 - axis.value)], []
                yield node, swapped
