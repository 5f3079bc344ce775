"""An operator: one way a model gets a kernel wrong, as a rewrite of syntax-tree nodes.

`mutations(tree)` yields (site, replacement) pairs: `site` a node of `tree` (left unchanged),
`replacement` a new expression that takes its place. Each pair is one mutant; the site's text in
the golden is replaced by ast.unparse(replacement), so the rest of the file keeps its form."""
import ast
import copy
from typing import Iterator, Tuple

from ..triton_ast import jit_functions, walk_in_order

Mutation = Tuple[ast.AST, ast.AST]


class Operator:
    name = ""
    models = ""  # the kernel bug it stands for, one line
    host = False  # True: it may change the host code (the launch, the allocations), not only kernels

    def mutations(self, tree: ast.Module) -> Iterator[Mutation]:
        raise NotImplementedError


def kernel_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes inside @triton.jit functions, in source order."""
    for function in jit_functions(tree):
        for node in walk_in_order(function):
            if node is not function:
                yield node


def host_nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """The nodes outside @triton.jit functions, in source order."""
    inside = {id(node) for node in kernel_nodes(tree)} | {id(f) for f in jit_functions(tree)}
    for node in walk_in_order(tree):
        if id(node) not in inside:
            yield node


def fresh(node: ast.AST) -> ast.AST:
    """A copy to build a replacement from: the golden's tree stays as it was."""
    return copy.deepcopy(node)


def tl_attr(name: str) -> ast.Attribute:
    return ast.Attribute(value=ast.Name(id="tl", ctx=ast.Load()), attr=name, ctx=ast.Load())


def size_parity(bound: ast.AST, like: ast.AST, parity: int) -> ast.Compare:
    """`like * 0 + bound % 2 == parity`: whether the size is even (0) or odd (1), as a tensor of
    `like`'s shape (the CPU interpreter cannot combine a scalar bool with a tensor mask)."""
    zeros = ast.BinOp(left=fresh(like), op=ast.Mult(), right=ast.Constant(0))
    parity_of = ast.BinOp(left=fresh(bound), op=ast.Mod(), right=ast.Constant(2))
    return ast.Compare(left=ast.BinOp(left=zeros, op=ast.Add(), right=parity_of),
                       ops=[ast.Eq()], comparators=[ast.Constant(parity)])
