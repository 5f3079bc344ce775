"""Which launched kernels are the submission's own: by their source, not by a label.

A kernel's `__module__` is writable, so a launch of the golden's kernel (or any library's)
could be relabelled as the submission's. Both Triton paths compile what the kernel's source
text says (JITFunction.src on a GPU; the interpreter rewrites inspect.getsourcelines(fn)), so
the source is what ran. The guest reports each launched kernel's name and `source_key` (a hash
of the function's syntax tree, decorators, comments and layout left out); the warden, which
has the submission's text, counts a kernel as own only when a function of that name and that
key is defined in the text (`defined_kernels`).
"""

import ast
import hashlib
import inspect
import textwrap

_keys = {}  # source text -> key (a kernel's source is parsed once per process)


def _function_key(node: ast.AST) -> str:
    node.decorator_list = []
    dumped = ast.dump(node, annotate_fields=False, include_attributes=False)
    return hashlib.sha256(dumped.encode()).hexdigest()[:32]


def source_key(text: str) -> str:
    """The key of the first function defined in text ("" when there is none)."""
    key = _keys.get(text)
    if key is None:
        key = ""
        try:
            tree = ast.parse(textwrap.dedent(text))
        except (SyntaxError, ValueError):
            tree = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = _function_key(node)
                break
        _keys[text] = key
    return key


def kernel_source(kernel) -> str:
    """The source Triton compiles or interprets for this launch object ("" if unknown)."""
    src = getattr(kernel, "src", None)
    if isinstance(src, str):
        return src
    fn = getattr(kernel, "fn", None)
    if fn is not None:
        try:
            return "".join(inspect.getsourcelines(fn)[0])
        except (OSError, TypeError):
            return ""
    return ""


def defined_kernels(code: str) -> set:
    """(name, key) of every function the submission's text defines, at any depth."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = node.name
            found.add((name, _function_key(node)))
    return found


def launched_kernels(launched) -> list:
    """The guest's report of the kernels a call launched: name, module label, source key."""
    reported = []
    for entry in launched:
        fields = list(entry) + ["", "", ""] if isinstance(entry, tuple) else ["<malformed>", "", ""]
        reported.append({"name": str(fields[0]), "module": str(fields[1]), "source_key": str(fields[2])})
    return reported


def split_own(reported, defined: set) -> tuple:
    """(own names, other names) of a guest's report; a malformed entry counts as other."""
    own, other = [], []
    for item in reported if isinstance(reported, list) else []:
        if not isinstance(item, dict):
            other.append(str(item)[:200])
            continue
        name, module, key = (str(item.get(k, ""))[:200] for k in ("name", "module", "source_key"))
        if (name, key) in defined:
            own.append(name)
        else:
            other.append(f"{module}.{name}" if module else name)
    return own, other
