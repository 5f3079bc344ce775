"""A float constant perturbed: an epsilon ten times larger, any other factor 1% off."""
import ast
import math

from ..triton_ast import walk_in_order
from .base import Operator

EPSILON_BELOW = 1e-3  # constants this small are epsilons: the bug is the wrong order of magnitude


class ConstantPerturbed(Operator):
    name = "constant_perturbed"
    host = True
    models = "a wrong constant: an eps x10, a scale (or any other float) x1.01"

    def mutations(self, tree):
        # The whole file: an eps default or a scale may sit in the host function too.
        for node in walk_in_order(tree):
            if not (isinstance(node, ast.Constant) and type(node.value) is float):
                continue
            value = node.value
            if value == 0.0 or not math.isfinite(value):
                continue
            factor = 10.0 if abs(value) < EPSILON_BELOW else 1.01
            yield node, ast.Constant(float(f"{value * factor:.12g}"))  # 1e-4, not 0.00010000000000000002
