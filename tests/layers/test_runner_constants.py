"""The runner holds no judgement constant: every top-level numeric constant of
runner/keval_runner (a name in capitals, leading underscore allowed, whose value holds a number
literal) is listed in runner_constants.txt with a reason, as a non-judgement (`keep`) or as a
judgement still to move to the controller (`debt`). A new one fails until it is moved into the
controller's policy or listed; a listed one that is gone fails, so the list stays true.

Not walked: runner/keval_adapters, the peer importers beside the runner, with the third-party
code they vendor (the peers' published tolerances they hold are written into each imported
task.toml, which the controller reads: docs/decisions/0025-policy-in-the-controller.md)."""
import ast
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
RUNNER = REPO / "runner" / "keval_runner"
ALLOW_LIST = pathlib.Path(__file__).with_name("runner_constants.txt")
CONSTANT_NAME = re.compile(r"_?[A-Z][A-Z0-9_]*$")
KINDS = ("keep", "debt")


def has_number(value: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and type(n.value) in (int, float, complex) for n in ast.walk(value))


def runner_constants(root: pathlib.Path = RUNNER) -> dict:
    """{"module.py:NAME": line} of every top-level numeric constant the runner defines."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.Assign):
                names, value = [t.id for t in node.targets if isinstance(t, ast.Name)], node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
                names, value = [node.target.id], node.value
            else:
                continue
            for name in names:
                if CONSTANT_NAME.match(name) and has_number(value):
                    found[f"{relative.as_posix()}:{name}"] = node.lineno
    return found


def allow_list() -> dict:
    """{"module.py:NAME": (kind, reason)}; a malformed line fails naming its line number."""
    listed = {}
    for number, line in enumerate(ALLOW_LIST.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(maxsplit=2)
        where = f"{ALLOW_LIST.name}:{number}"
        assert len(parts) == 3 and ":" in parts[0], f"{where}: want MODULE:NAME KIND REASON, got {line!r}"
        assert parts[1] in KINDS, f"{where}: kind {parts[1]!r} is not one of {KINDS}"
        assert parts[0] not in listed, f"{where}: {parts[0]} listed twice"
        listed[parts[0]] = (parts[1], parts[2])
    return listed


def test_every_numeric_constant_of_the_runner_is_listed_with_a_reason():
    found, listed = runner_constants(), allow_list()
    new = sorted(set(found) - set(listed))
    assert not new, (
        "new numeric constants in runner/keval_runner: "
        + ", ".join(f"{name} (line {found[name]})" for name in new)
        + ". A number that decides a verdict, a threshold or a statistic is the controller's: move it into "
        "its policy (src/judge/judge_policy.h, src/engine/settings/run_settings.h) and send it in the request. "
        f"Otherwise list it in tests/layers/{ALLOW_LIST.name} with a one-line reason.")


def test_every_listed_constant_still_exists():
    gone = sorted(set(allow_list()) - set(runner_constants()))
    assert not gone, (f"listed in tests/layers/{ALLOW_LIST.name} but no longer in the runner: "
                      + ", ".join(gone) + " (remove the line, or rename it where the constant moved)")


def test_the_walk_finds_a_new_threshold_and_not_a_counter(tmp_path):
    (tmp_path / "guest").mkdir()
    (tmp_path / "guest" / "screen.py").write_text(
        "MIN_SHARE = 0.5\n_calls = 0\nLIMIT: int = 2 * 3\nNAME = 'x'\n\ndef f():\n    INNER = 3\n")
    assert runner_constants(tmp_path) == {"guest/screen.py:MIN_SHARE": 1, "guest/screen.py:LIMIT": 3}
