"""The test part of a TritonBench task file, made safe to run against a submission."""

import ast

from ..common.errors import AdapterError
from .source_edit import blank_statements


def defined_names(tree: ast.Module) -> set:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _calls(node, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
               for n in ast.walk(node))


def prepare_test(test: str, reference_names: set, stem: str = ""):
    """(test source to exec, test function name, notes, its top-level imports as source).
    Raises AdapterError when unusable.

    Removed (blanked, so line numbers stay): the module-level call of the test function and
    prints (`result_gold = test_x()`, `print(...)`, `if __name__ == '__main__':` blocks), and
    top-level definitions that shadow the reference part's names (a test that redefines the
    operator would otherwise let any submission pass). `from <stem> import f` (a test importing its
    own file, which works when TritonBench runs the file as a script) becomes `f = f`."""
    try:
        tree = ast.parse(test)
    except SyntaxError as exc:
        raise AdapterError(f"the test part does not parse: {exc.msg} (line {exc.lineno})")
    functions = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    tests = [f for f in functions if f.startswith("test")]
    called = [f for f in tests if any(_calls(n, f) for n in tree.body
                                      if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))]
    chosen = called[0] if called else (tests[0] if len(tests) == 1 else None)
    if chosen is None:
        raise AdapterError("the test part has no test function" if not tests
                           else f"the test part has several test functions ({', '.join(tests)}) and calls none")
    drop, notes, rebind = [], [], {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and stem and node.module == stem and not node.level:
            drop.append(node)
            rebind[node.lineno] = "; ".join(f"{a.asname or a.name} = {a.name}" for a in node.names)
        elif isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            drop.append(node)
        elif isinstance(node, ast.If) and any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(node.test)):
            drop.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and _calls(node, chosen):
            drop.append(node)
        elif not isinstance(node, (ast.Import, ast.ImportFrom)):
            shadowed = defined_names(ast.Module(body=[node], type_ignores=[])) & reference_names
            if shadowed:
                drop.append(node)
                notes.append("the test part redefined " + ", ".join(sorted(shadowed)) +
                             " (the reference's own names); those definitions are removed")
    source = blank_statements(test, drop, rebind)
    try:
        ast.parse(source)
    except SyntaxError as exc:  # a removed statement shared a line with a kept one
        raise AdapterError(f"the test part does not parse once its call is removed: {exc.msg}")
    imports = "\n".join(ast.unparse(n) for n in tree.body
                        if isinstance(n, (ast.Import, ast.ImportFrom)) and n not in drop)
    return source, chosen, notes, imports
