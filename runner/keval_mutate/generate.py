"""`generate`: the mutants of each named golden, as a submissions JSONL (what keval run reads)
and an index of what each mutant is (operator, site, diff), for the report."""
import difflib
import json
import os

from .errors import MutateError
from .mutants import make_mutants
from .operators import BY_NAME, OPERATORS

JSONL = "mutants.jsonl"
INDEX = "mutants.index.json"


def choose_operators(names: str) -> list:
    if not names:
        return OPERATORS
    chosen = []
    for name in (n.strip() for n in names.split(",") if n.strip()):
        if name not in BY_NAME:
            near = difflib.get_close_matches(name, BY_NAME, n=1)
            hint = f" (did you mean {near[0]}?)" if near else f" (known: {', '.join(BY_NAME)})"
            raise MutateError("--operators", f"unknown operator {name}{hint}")
        chosen.append(BY_NAME[name])
    return chosen


def parse_golden(spec: str) -> tuple:
    task, sep, path = spec.partition("=")
    if not sep or not task or not path:
        raise MutateError("--golden", f"{spec!r} is not TASK=PATH")
    return task, path


def generate(goldens: list, out: str, operators: list) -> dict:
    """Writes OUT/mutants.jsonl (the valid mutants) and OUT/mutants.index.json (every mutant, and
    each task's golden); returns the index."""
    index = {"operators": {op.name: op.models for op in operators}, "tasks": {}, "mutants": []}
    lines = []
    for task, path in goldens:
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except OSError as exc:
            raise MutateError(path, f"cannot read the golden: {exc.strerror}") from None
        try:
            mutants = make_mutants(task, source, path, operators)
        except SyntaxError as exc:
            raise MutateError(f"{path}:{exc.lineno}", f"the golden does not parse: {exc.msg}") from None
        index["tasks"][task] = {"golden": path, "golden_id": f"golden:{task}"}
        for mutant in mutants:
            index["mutants"].append(mutant.index_entry())
            if not mutant.invalid:
                lines.append(json.dumps({"task": task, "id": mutant.id, "code": mutant.code}))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, JSONL), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    with open(os.path.join(out, INDEX), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
    return index
