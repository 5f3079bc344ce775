"""A loop cut short: a reduction over its first block only."""
import ast

from ..triton_ast import dotted_name
from .base import Operator, fresh, kernel_nodes

RANGES = ("range", "tl.range", "tl.static_range", "triton.language.range", "triton.language.static_range")


def one_trip(call: ast.Call) -> ast.Call:
    """range(...) that stops after its first step: range(n) -> range(1), range(a, b) ->
    range(a, a + 1), range(a, b, s) -> range(a, a + s, s); keywords (num_stages=) kept."""
    cut = fresh(call)
    if len(call.args) == 1:
        cut.args = [ast.Constant(1)]
        return cut
    start = call.args[0]
    step = call.args[2] if len(call.args) > 2 else ast.Constant(1)
    is_zero = isinstance(start, ast.Constant) and start.value == 0
    stop = fresh(step) if is_zero else ast.BinOp(left=fresh(start), op=ast.Add(), right=fresh(step))
    cut.args = [fresh(start), stop] + [fresh(a) for a in call.args[2:]]
    return cut


class LoopOneBlock(Operator):
    name = "loop_one_block"
    models = "a reduction over one block only: a kernel's `for` loop stops after its first step"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if (isinstance(node, ast.For) and isinstance(node.iter, ast.Call)
                    and dotted_name(node.iter.func) in RANGES and 1 <= len(node.iter.args) <= 3):
                yield node.iter, one_trip(node.iter)
