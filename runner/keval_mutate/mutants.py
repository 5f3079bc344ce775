"""The mutants of one golden: every operator at every site, one change each, duplicates dropped."""
import ast
import difflib
from dataclasses import dataclass, asdict

from .operators import OPERATORS
from .splice import splice


@dataclass
class Mutant:
    id: str
    task: str
    operator: str
    site: int          # the operator's n-th site in the file, from 1
    line: int          # the golden's line it changes
    code: str
    diff: str          # unified diff against golden.py
    invalid: str = ""  # why the mutated code does not compile ("" when it does)

    def index_entry(self) -> dict:
        entry = asdict(self)
        del entry["code"]
        return entry


def make_mutants(task: str, source: str, origin: str, operators=OPERATORS) -> list:
    """Raises SyntaxError when the golden itself does not parse."""
    tree = ast.parse(source, filename=origin)
    made, seen = [], {source}
    for operator in operators:
        site = 0
        for node, replacement in operator.mutations(tree):
            code = splice(source, tree, node, replacement)
            if code in seen:  # another operator (or site) already made this program
                continue
            seen.add(code)
            site += 1
            made.append(Mutant(id=f"mutant:{task}:{operator.name}:{site}", task=task, operator=operator.name,
                               site=site, line=node.lineno, code=code, diff=unified_diff(source, code, task),
                               invalid=compile_error(code, origin)))
    return made


def unified_diff(golden: str, mutant: str, task: str) -> str:
    return "".join(difflib.unified_diff(golden.splitlines(keepends=True), mutant.splitlines(keepends=True),
                                        f"{task}/golden.py", f"{task}/mutant.py", n=1))


def compile_error(code: str, origin: str) -> str:
    try:
        compile(code, origin, "exec")
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    return ""
