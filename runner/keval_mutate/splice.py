"""A mutant's text: the golden with one node's source replaced by the unparsed replacement, so
comments and layout stay and the diff shows the one change."""
import ast

# Expressions that never need parentheses where another expression stood.
_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript)
# Places where any expression stands alone: no parentheses needed there either.
_WHOLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.keyword, ast.Return, ast.Expr)


def splice(source: str, tree: ast.Module, site: ast.AST, replacement: ast.AST) -> str:
    """The source with `site` (a node of `tree`, parsed from `source`) replaced. Checked: the
    result parses to `tree` with the node replaced; where it does not, the whole file is
    unparsed instead (comments lost, still the same program)."""
    text = ast.unparse(replacement)
    if not isinstance(replacement, _ATOMS) and not _stands_alone(tree, site):
        text = f"({text})"
    lines = source.encode().splitlines(keepends=True)
    # ast positions count UTF-8 bytes within a line, from 1 for lines and 0 for columns.
    start = sum(len(line) for line in lines[:site.lineno - 1]) + site.col_offset
    end = sum(len(line) for line in lines[:site.end_lineno - 1]) + site.end_col_offset
    raw = source.encode()
    spliced = (raw[:start] + text.encode() + raw[end:]).decode()
    expected = _dump_with(tree, site, replacement)
    try:
        if ast.dump(ast.parse(spliced)) == expected:
            return spliced
    except SyntaxError:
        pass
    with _replaced(tree, site, replacement):
        return ast.unparse(tree) + "\n"


def _stands_alone(tree, site) -> bool:
    parent, field, _ = _find_parent(tree, site)
    return isinstance(parent, _WHOLE) or (isinstance(parent, ast.Call) and field in ("args", "keywords"))


def _dump_with(tree, site, replacement) -> str:
    with _replaced(tree, site, replacement):
        return ast.dump(tree)


class _replaced:
    """`site` swapped for `replacement` in its parent while the block runs."""

    def __init__(self, tree, site, replacement):
        self.parent, self.field, self.index = _find_parent(tree, site)
        self.site, self.replacement = site, replacement

    def _set(self, node):
        if self.index is None:
            setattr(self.parent, self.field, node)
        else:
            getattr(self.parent, self.field)[self.index] = node

    def __enter__(self):
        self._set(self.replacement)

    def __exit__(self, *exc):
        self._set(self.site)


def _find_parent(tree, site):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is site:
                return parent, field, None
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if item is site:
                        return parent, field, index
    raise ValueError("the site is not a node of the tree")
