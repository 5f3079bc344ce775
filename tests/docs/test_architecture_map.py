"""docs/architecture.md (the map) and docs/decisions/ name only what exists: every path in
backticks is a file or folder of the repository, every type is defined in src/ or runner/,
every other code name occurs in the code, every `keval X` is a command and every --option one
of its options. A rename that leaves the map behind fails here."""
import pathlib
import re

import pytest

THIS_FILE = pathlib.Path(__file__).resolve()
ROOT = THIS_FILE.parents[2]
MAP_PAGES = [ROOT / "docs" / "architecture.md", *sorted((ROOT / "docs" / "decisions").glob("*.md"))]
CODE_ROOTS = ["src", "runner", "clients", "scripts", "bench", "cmake", "tests", ".ci"]
CODE_FILES = ["Makefile", "CMakeLists.txt"]
CODE_SUFFIXES = {".h", ".cc", ".py", ".json", ".sh", ".cmake", ".txt", ""}
SKIPPED_DIRS = {"__pycache__", ".git", "vendor", "fixtures", "third_party"}
PATH_SUFFIXES = (".py", ".cc", ".h", ".md", ".sh", ".json", ".cmake", ".toml", ".js", ".css",
                 ".jsonl", ".txt")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A placeholder in a path: <task>, COMMAND, *.
PLACEHOLDER = re.compile(r"<[^>]+>|(?<![A-Za-z])[A-Z]{2,}(?![a-z])|\*")


def code_files():
    for top in CODE_ROOTS:
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and path.suffix in CODE_SUFFIXES and path != THIS_FILE \
                    and not SKIPPED_DIRS & set(path.relative_to(ROOT).parts):
                yield path
    for name in CODE_FILES:
        yield ROOT / name


def read_code():
    texts = []
    for path in code_files():
        try:
            texts.append(path.read_text(errors="replace"))
        except OSError:
            continue
    return "\n".join(texts)


CODE = read_code()
WORDS = set(IDENTIFIER.findall(CODE))
TYPES = set(re.findall(r"\b(?:class|struct|using|enum class|enum)\s+([A-Z][A-Za-z0-9_]*)", CODE))
TREE = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
        if not {".git", "__pycache__", "build"} & set(p.relative_to(ROOT).parts)}
COMMANDS = set(re.findall(r'add_subcommand\(\s*"([a-z-]+)"',
                          "\n".join(p.read_text() for p in (ROOT / "src" / "cli").glob("*.cc"))))
OPTIONS = set(re.findall(r'"(--[a-z][a-z0-9-]*)', CODE))


def backticked(page):
    # Code blocks are pictures, not names; inline code spans are the names.
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return re.findall(r"`([^`\n]+)`", text)


def is_path(token):
    return " " not in token and not token.startswith("--") and (
        "/" in token or token.endswith(PATH_SUFFIXES) or token in CODE_FILES)


def path_problem(token):
    if token.startswith("/"):  # a machine path the code uses, such as /var/tmp/keval-uids
        return None if token in CODE else f"the machine path {token} occurs nowhere in the code"
    if token == "../":
        return None
    if "/" not in token and token.endswith((".json", ".jsonl", ".db")) and token in CODE:
        return None  # a file keval writes or reads: results.jsonl, summary.json
    pattern = "[^/]+".join(re.escape(part) for part in PLACEHOLDER.split(token.rstrip("/")))
    # A path may be written from the repository's root or from inside runner/keval_runner.
    found = re.compile(rf"(?:.*/)?{pattern}")
    if any(found.fullmatch(path) for path in TREE):
        return None
    return f"no file or folder {token}"


def name_problems(token):
    problems = []
    command = re.match(r"keval ([a-z-]+)", token)
    if command and command.group(1) not in COMMANDS:
        problems.append(f"`keval {command.group(1)}` is not a command")
    for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", token):
        if option not in OPTIONS:
            problems.append(f"the option {option} occurs nowhere in the code")
    module = re.match(r"python -m ([\w.]+)", token)
    if module and not (ROOT / "runner" / module.group(1).replace(".", "/")).is_dir():
        problems.append(f"no Python package {module.group(1)} under runner/")
    if IDENTIFIER.fullmatch(token):
        names = [token]
    else:  # in a longer span only the names that look like code: snake_case and CamelCase
        names = [w for w in IDENTIFIER.findall(token)
                 if "_" in w.strip("_") or re.fullmatch(r"[A-Z][a-z]+[A-Z]\w*", w)]
    for owner, member in re.findall(r"([A-Z]\w*)::(\w+)", token):
        if owner not in TYPES or member not in WORDS:
            problems.append(f"{owner}::{member} is defined nowhere in src/")
    for name in names:
        if re.fullmatch(r"[A-Z][a-z0-9]+\w*", name) and name not in TYPES:
            problems.append(f"the type {name} is defined nowhere in src/ or runner/")
        elif name not in WORDS:
            problems.append(f"the name {name} occurs nowhere in the code")
    return problems


@pytest.mark.parametrize("page", MAP_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_name_exists(page):
    problems = []
    for token in backticked(page):
        if is_path(token):
            problem = path_problem(token)
            problems += [problem] if problem else []
        else:
            problems += name_problems(token)
    assert not problems, f"{page.relative_to(ROOT)}: " + "; ".join(sorted(set(problems)))


def test_the_map_has_its_parts():
    text = (ROOT / "docs" / "architecture.md").read_text()
    for heading in ("## Processes and layers", "## Entry points", "## To change X, edit Y",
                    "## Glossary"):
        assert heading in text, f"docs/architecture.md lacks the section {heading!r}"


def test_every_decision_has_context_decision_consequences():
    records = sorted((ROOT / "docs" / "decisions").glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert records, "docs/decisions/ holds no NNNN-title.md record"
    for number, record in enumerate(records, start=1):
        assert record.name.startswith(f"{number:04d}-"), f"{record.name}: expected number {number:04d}"
        text = record.read_text()
        for part in ("**Context.**", "**Decision.**", "**Consequences.**"):
            assert part in text, f"docs/decisions/{record.name} lacks {part}"


def test_a_wrong_name_is_caught():
    # The checks themselves can fail: a renamed file, type, name, command and option.
    assert path_problem("src/engine/no_such_file.cc")
    assert path_problem("no_such_module.py")
    assert path_problem("src/cli/COMMAND_command.cc") is None
    assert path_problem("guest.py") is None
    assert name_problems("WorkerSlotThatIsNot")
    assert name_problems("no_such_name_anywhere_in_keval")
    assert name_problems("keval no-such-command")
    assert name_problems("--no-such-option")
    assert name_problems("Suite::no_such_member")
    assert not name_problems("WorkerSlot")
    assert not name_problems("Suite::load")
