"""The code's layers hold where the build cannot see: no import cycle among runner modules, and
no src/ include that goes around the layers' libraries.

src/ (docs/decisions/0001-layers-as-cmake-libraries.md): each directory is a CMake library
that sees only the headers of the libraries it links, declared lowest first
(cmake/keval_layer.cmake), so an include up the layers or in a circle fails the build; this only
checks what could go around it.
runner/: no module imports, at any depth of a function, a module that imports it back.
KNOWN_CYCLES lists what is still to untangle; the test also fails once a listed one is gone, so
the list only shrinks. keval_runner never imports keval_adapters: a native task's evaluation key
follows keval_runner's code alone, and a peer task's that code and its own adapter's
(docs/decisions/0026-adapters-outside-the-runner.md); the adapters may import the runner.
"""
import ast
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]

KNOWN_CYCLES = set()


def test_no_src_include_climbs_out_of_its_directory():
    """CMake lets a directory see only the headers of the libraries it links; a path that
    climbs out ("../engine/x.h") would find any file and go around that."""
    climbing = []
    for path in sorted((REPO / "src").rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.match(r'\s*#\s*include\s*[<"][^>"]*\.\./', line):
                climbing.append(f"{path.relative_to(REPO)}:{number}")
    assert not climbing, "includes by a path that climbs out of the directory: " + ", ".join(climbing)


def strongly_connected(graph: dict) -> list:
    """Tarjan's components of more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def runner_modules() -> dict:
    modules = {}
    for path in (REPO / "runner").rglob("*.py"):
        parts = list(path.relative_to(REPO / "runner").with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imports_of(name: str, path: pathlib.Path, modules: dict) -> set:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            for alias in node.names:
                if f"{target}.{alias.name}" in modules:
                    found.add(f"{target}.{alias.name}")
                elif target in modules:
                    found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
    return found - {name}


def test_no_import_cycle_among_runner_modules():
    modules = runner_modules()
    cycles = set(strongly_connected({name: imports_of(name, path, modules) for name, path in modules.items()}))
    new = cycles - KNOWN_CYCLES
    assert not new, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in new)
    assert cycles == KNOWN_CYCLES, f"untangled, drop from KNOWN_CYCLES: {KNOWN_CYCLES - cycles}"


def adapter_imports(root: pathlib.Path) -> list:
    """"file:line" of every import of keval_adapters, at any depth, in the .py files under root."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            if any(name == "keval_adapters" or name.startswith("keval_adapters.") for name in names):
                found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
    return found


def test_the_runner_never_imports_the_adapters():
    found = adapter_imports(REPO / "runner" / "keval_runner")
    assert not found, ("keval_runner imports keval_adapters, code its evaluation keys do not follow: "
                       + ", ".join(found))


def test_the_adapter_import_finder_finds_one(tmp_path):
    (tmp_path / "guest").mkdir()
    (tmp_path / "guest" / "load.py").write_text(
        "import keval_runner.compare\n\ndef f():\n    from keval_adapters.common import names\n")
    (tmp_path / "inputs.py").write_text("import keval_adapters\nfrom .keval_adapters import x\n")
    assert adapter_imports(tmp_path) == ["guest/load.py:4", "inputs.py:1"]


def test_the_cycle_finder_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
