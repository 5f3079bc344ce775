"""The code's layers hold: no src/ include goes up the layers, no import cycle among runner modules.

src/ (docs/architecture.md, "Layers"): a directory may include its own layer and the layers
below it, never one above, and directories of one layer never include each other in a circle.
runner/: no module imports, at any depth of a function, a module that imports it back.
KNOWN_* list what is still to untangle; each test also fails once a listed one is gone, so
the lists only shrink.
"""
import ast
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]

LAYERS = {
    "cli": 6,
    "serve": 5, "slurm": 5,
    "engine": 4,
    "judge": 3, "store": 3, "report": 3, "generate": 3,
    "facts": 2,
    "stats": 1, "suite": 1, "submission": 1, "common": 1,
}
KNOWN_UPWARD = set()
KNOWN_CYCLES = set()


def include_edges() -> dict:
    """{(from_dir, to_dir): first "file:line" that makes it}, across src/ directories."""
    edges = {}
    for path in sorted((REPO / "src").rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        here = path.relative_to(REPO / "src").parts[0]
        for number, line in enumerate(path.read_text().splitlines(), 1):
            found = re.match(r'#include "([a-z_]+)/', line)
            if found and found.group(1) != here:
                edges.setdefault((here, found.group(1)), f"{path.relative_to(REPO)}:{number}")
    return edges


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


def test_every_src_directory_has_a_layer():
    missing = [d.name for d in (REPO / "src").iterdir() if d.is_dir() and d.name not in LAYERS]
    assert not missing, f"src/ directories without a layer in tests/layers/test_layers.py: {missing}"


def test_no_src_include_goes_up_the_layers():
    upward = {(a, b): where for (a, b), where in include_edges().items() if LAYERS[b] > LAYERS[a]}
    new = {edge: where for edge, where in upward.items() if edge not in KNOWN_UPWARD}
    assert not new, "includes up the layers: " + "; ".join(f"{a} -> {b} ({w})" for (a, b), w in new.items())
    assert set(upward) == KNOWN_UPWARD, f"no longer included upwards, drop from KNOWN_UPWARD: {KNOWN_UPWARD - set(upward)}"


def test_no_include_cycle_among_src_directories():
    graph = {}
    for a, b in include_edges():
        if (a, b) not in KNOWN_UPWARD:  # reported by the test above
            graph.setdefault(a, set()).add(b)
    assert strongly_connected(graph) == []


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


def test_the_cycle_finder_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
