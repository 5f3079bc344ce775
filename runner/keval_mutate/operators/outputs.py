"""What a kernel hands back: its stores rounded through float16, the output allocated in another
dtype, an input written in place."""
import ast

from ..triton_ast import dotted_name, is_tl_call, keyword
from .base import Operator, fresh, host_nodes, kernel_nodes, tl_attr

ALLOCATIONS = ("torch.empty", "torch.empty_like", "torch.zeros", "torch.zeros_like", "torch.full", "torch.full_like",
               "torch.ones", "torch.ones_like")
LIKE = ("torch.empty_like", "torch.zeros_like")


def torch_attr(name: str) -> ast.Attribute:
    return ast.Attribute(value=ast.Name(id="torch", ctx=ast.Load()), attr=name, ctx=ast.Load())


class StoreRounded(Operator):
    name = "store_rounded"
    models = "a silent float16 path: each stored value rounded through float16 (`v` becomes `v.to(tl.float16)`)"

    def mutations(self, tree):
        for node in kernel_nodes(tree):
            if is_tl_call(node, "store") and len(node.args) >= 2:
                call = fresh(node)
                value = fresh(node.args[1])
                call.args[1] = ast.Call(func=ast.Attribute(value=value, attr="to", ctx=ast.Load()),
                                        args=[tl_attr("float16")], keywords=[])
                yield node, call


class OutputDtypeChanged(Operator):
    name = "output_dtype_changed"
    models = "a buffer allocated in another dtype: `dtype=` of torch.empty/zeros/full(_like) becomes float32 (float16 if it was float32)"
    host = True

    def mutations(self, tree):
        for node in host_nodes(tree):
            if not (isinstance(node, ast.Call) and dotted_name(node.func) in ALLOCATIONS):
                continue
            given = keyword(node, "dtype")
            if given is None and dotted_name(node.func) not in LIKE:
                continue  # torch.empty(shape) without a dtype is float32 already
            call = fresh(node)
            was_float32 = given is not None and dotted_name(given.value) == "torch.float32"
            dtype = torch_attr("float16" if was_float32 else "float32")
            call.keywords = [k for k in call.keywords if k.arg != "dtype"] + [ast.keyword(arg="dtype", value=dtype)]
            yield node, call


class InputWrittenInPlace(Operator):
    name = "input_written_in_place"
    models = "an output that aliases an input: `torch.empty_like(x)` becomes `x`, so the kernel writes over x"
    host = True

    def mutations(self, tree):
        for node in host_nodes(tree):
            if (isinstance(node, ast.Call) and dotted_name(node.func) in LIKE and len(node.args) == 1
                    and isinstance(node.args[0], ast.Name) and keyword(node, "dtype") is None):
                yield node, fresh(node.args[0])
