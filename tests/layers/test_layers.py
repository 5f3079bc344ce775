"""The code's layers hold where the build cannot see: no import cycle among runner modules, and
no src/ include that goes around the layers' libraries.

src/ (docs/decisions/0001-layers-as-cmake-libraries.md): each directory (each folder of
src/engine, docs/decisions/0028-engine-by-concern.md) is a CMake library that sees only the
headers of the libraries it links, declared lowest first (cmake/keval_layer.cmake), so an include
up the layers or in a circle fails the build; this checks what could go around it, and that a
library's declared links are exactly the libraries its files include (a link no file needs, or
one seen only through another library, would make the layers in CMakeLists.txt say less than the
code).
runner/: no module imports, at any depth of a function, a module that imports it back.
KNOWN_CYCLES lists what is still to untangle; the test also fails once a listed one is gone, so
the list only shrinks. keval_runner's subpackages are layered (RUNNER_TIERS,
docs/decisions/0027-runner-packages-by-concept.md): a module imports its own package and those
of lower tiers only, and the package's top holds only the process tree's start. keval_runner
never imports keval_adapters: a native task's evaluation key follows keval_runner's code alone,
and a peer task's that code and its own adapter's
(docs/decisions/0026-adapters-outside-the-runner.md); the adapters may import the runner.
"""
import ast
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]

KNOWN_CYCLES = set()

# keval_runner's subpackages, highest tier first. A module imports only its own package and the
# packages of lower tiers; packages of one tier never import each other. The modules at the top
# of keval_runner start the process tree (python -m keval_runner: the seed, a zygote) and may
# import any package. A new subpackage fails until it is placed here.
RUNNER_TIERS = [
    ("jobs",),
    ("warden",),
    ("guest",),
    ("timing",),
    ("handoff",),
    ("checks", "compare", "inputs", "interpreter", "sandbox"),
    ("device",),
    ("protocol",),
]
RUNNER_TOP = {"__init__", "__main__", "seed", "zygote", "warm_up"}


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


def declared_libraries(cmake_lists: str) -> dict:
    """Each keval_layer(NAME ...) of CMakeLists.txt: NAME -> (DEPS, TEST_DEPS)."""
    libraries = {}
    for call in re.findall(r"^keval_layer\(([^()]*)\)", cmake_lists, flags=re.M):
        name, *words = call.split()
        lists, current = {"DEPS": set(), "TEST_DEPS": set()}, None
        for word in words:
            if re.fullmatch(r"[A-Z_]+", word):
                current = word
            elif current in lists:
                lists[current].add(word)
        libraries[name] = (lists["DEPS"], lists["TEST_DEPS"])
    return libraries


def included_libraries(src: pathlib.Path, name: str, libraries) -> tuple:
    """The other libraries that NAME's files include: (by its sources and headers, by its tests
    alone). A header belongs to the library whose folder is the longest prefix of its path."""
    def owner(header):
        return max((lib for lib in libraries if header.startswith(lib + "/")), key=len, default=None)

    own, tests = set(), set()
    for path in sorted((src / name).rglob("*")):
        if path.suffix not in (".h", ".cc"):
            continue
        for header in re.findall(r'^\s*#\s*include\s*"([^"]+)"', path.read_text(), flags=re.M):
            library = owner(header)
            if library and library != name:
                (tests if path.name.endswith("_test.cc") else own).add(library)
    return own, tests - own


def link_problems(root: pathlib.Path) -> list:
    libraries = declared_libraries((root / "CMakeLists.txt").read_text())
    problems = []
    for name, (deps, test_deps) in libraries.items():
        own, tests = included_libraries(root / "src", name, libraries)
        for what, declared, included in (("DEPS", deps, own), ("TEST_DEPS", test_deps, tests)):
            if missing := sorted(included - declared):
                problems.append(f"src/{name} includes {', '.join(missing)} without {what} naming it")
            if unused := sorted(declared - included):
                problems.append(f"src/{name}'s {what} name {', '.join(unused)}, which no file includes")
    return problems


def test_every_library_links_exactly_what_it_includes():
    problems = link_problems(REPO)
    assert not problems, "CMakeLists.txt's keval_layer links and the includes differ: " + "; ".join(problems)


def test_the_link_check_finds_a_missing_and_an_unused_link(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(
        "keval_layer(common LAYER 1)\n"
        "keval_layer(engine/jobs LAYER 4 DEPS common)\n"
        "keval_layer(engine/session LAYER 4 DEPS common engine/jobs TEST_DEPS common\n"
        "  LINK Threads::Threads)\n")
    for folder in ("common", "engine/jobs", "engine/session"):
        (tmp_path / "src" / folder).mkdir(parents=True)
    (tmp_path / "src/common/near.h").write_text("#pragma once\n")
    (tmp_path / "src/engine/jobs/job_plan.h").write_text('#include "engine/jobs/evaluator.h"\n')
    (tmp_path / "src/engine/session/run_session.cc").write_text(
        '#include "engine/session/run_session.h"\n#include "engine/jobs/job_plan.h"\n')
    (tmp_path / "src/engine/session/run_session_test.cc").write_text('#include "engine/jobs/job_plan.h"\n')
    assert link_problems(tmp_path) == [
        "src/engine/jobs's DEPS name common, which no file includes",
        "src/engine/session's DEPS name common, which no file includes",
        "src/engine/session's TEST_DEPS name common, which no file includes",
    ]
    (tmp_path / "src/engine/jobs/evaluator.cc").write_text('#include "common/near.h"\n')
    (tmp_path / "src/engine/session/work_root.cc").write_text(
        '#include "common/near.h"\n#include "engine/jobs/job_plan.h"\n')
    (tmp_path / "src/engine/session/work_root_test.cc").write_text('#include "common/near.h"\n')
    (tmp_path / "src/common/near.cc").write_text('#include "engine/jobs/job_plan.h"\n')
    assert link_problems(tmp_path) == [
        "src/common includes engine/jobs without DEPS naming it",
        "src/engine/session's TEST_DEPS name common, which no file includes",
    ]


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


def runner_package(module: str):
    """"guest" for keval_runner.guest.guest_process (and the package keval_runner.guest itself);
    None for a module at the top of keval_runner."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] not in RUNNER_TOP) else None


def tier_violations(modules: dict, tiers: list) -> list:
    """"module imports target" for every import of a keval_runner module from a package of its
    own tier or a higher one, or from the top of keval_runner."""
    tier = {package: number for number, packages in enumerate(tiers) for package in packages}
    found = []
    for name, path in sorted(modules.items()):
        own = runner_package(name) if name.startswith("keval_runner.") else None
        if own is None:
            continue
        for target in sorted(imports_of(name, path, modules)):
            if not target.startswith("keval_runner."):
                continue
            other = runner_package(target)
            if other != own and (other is None or tier.get(other, -1) <= tier.get(own, -1)):
                found.append(f"{name} imports {target}")
    return found


def test_every_runner_package_has_its_tier():
    root = REPO / "runner" / "keval_runner"
    packages = {path.parent.name for path in root.glob("*/__init__.py")}
    placed = {package for packages in RUNNER_TIERS for package in packages}
    assert packages == placed, (f"keval_runner subpackages without a tier: {sorted(packages - placed)}; "
                                f"tiers naming no package: {sorted(placed - packages)} (RUNNER_TIERS)")
    top = {path.stem for path in root.glob("*.py")}
    assert top <= RUNNER_TOP, (f"modules at the top of keval_runner: {sorted(top - RUNNER_TOP)}; "
                               "put each in the package of its concept")


def test_runner_packages_import_only_their_own_and_lower_tiers():
    found = tier_violations(runner_modules(), RUNNER_TIERS)
    assert not found, "imports up or across keval_runner's tiers (RUNNER_TIERS): " + "; ".join(found)


def test_the_tier_check_finds_an_import_up_and_across(tmp_path):
    files = {"keval_runner/__init__.py": "", "keval_runner/zygote.py": "from .guest import guest\n",
             "keval_runner/guest/__init__.py": "", "keval_runner/guest/guest.py": "from ..device import gate\n",
             "keval_runner/device/__init__.py": "",
             "keval_runner/device/gate.py": "def f():\n    from ..guest import guest\n",
             "keval_runner/checks/__init__.py": "", "keval_runner/checks/watch.py": "from ..inputs.draw import x\n",
             "keval_runner/inputs/__init__.py": "", "keval_runner/inputs/draw.py": "from .. import zygote\n"}
    modules = {}
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        parts = list(pathlib.Path(name).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    assert tier_violations(modules, [("guest",), ("checks", "inputs"), ("device",)]) == [
        "keval_runner.checks.watch imports keval_runner.inputs.draw",
        "keval_runner.device.gate imports keval_runner.guest.guest",
        "keval_runner.inputs.draw imports keval_runner.zygote"]


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
