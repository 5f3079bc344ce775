"""The sweep's variants (`keval sweep`): a program rewritten over its tuning space.

A knob is an integer literal that sets a tuning value: a launch's or triton.Config's
`num_warps=`/`num_stages=`, a `BLOCK*`/`TILE*`/`GROUP*`/`SPLIT*`/`CHUNK*` keyword or dict entry,
or the value (not the condition) assigned to a name like `BLOCK_M` or `warps`. A variant replaces
knob literals in the text and changes nothing else, so it is judged and timed like any
submission; a configuration the kernel cannot run fails honestly and is a null label.
"""

import ast
import json
import os
import random
import re

KNOB_NAME = re.compile(r"(block|tile|group|split|chunk|warps|stages)|^B[MNKD]$", re.I)
CHOICES = {"num_warps": (1, 2, 4, 8, 16), "num_stages": (1, 2, 3, 4, 5)}


class Knob:
    def __init__(self, name: str, node: ast.Constant):
        self.name, self.value = name, node.value
        self.line, self.col, self.end_col = node.lineno, node.col_offset, node.end_col_offset

    def choices(self) -> tuple:
        lowered = self.name.lower()
        if "warps" in lowered:
            return CHOICES["num_warps"]
        if "stages" in lowered:
            return CHOICES["num_stages"]
        if self.value >= 1 and self.value & (self.value - 1) == 0:  # powers of two stay so
            return tuple(v for v in (self.value // 4, self.value // 2, self.value, self.value * 2, self.value * 4)
                         if 1 <= v <= 65536)
        return (self.value,)


def _int_literals(node) -> list:
    """Literals that are the value: both arms of a conditional expression, never its test."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [node]
    if isinstance(node, ast.IfExp):
        return _int_literals(node.body) + _int_literals(node.orelse)
    return []


def find_knobs(source: str) -> list:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    knobs = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg and KNOB_NAME.search(keyword.arg):
                    knobs += [Knob(keyword.arg, c) for c in _int_literals(keyword.value)]
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and KNOB_NAME.search(key.value):
                    knobs += [Knob(key.value, c) for c in _int_literals(value)]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = [(target, value)]
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
                pairs = list(zip(target.elts, value.elts))  # BM, BN, warps = 128, 64, 4
            for name, literal in pairs:
                if isinstance(name, ast.Name) and KNOB_NAME.search(name.id):
                    knobs += [Knob(name.id, c) for c in _int_literals(literal)]
    unique = {(k.line, k.col): k for k in knobs}
    return [k for k in sorted(unique.values(), key=lambda k: (k.line, k.col)) if len(k.choices()) > 1]


def rewrite(source: str, knobs: list, values: list) -> str:
    lines = source.splitlines(keepends=True)
    for knob, value in sorted(zip(knobs, values), key=lambda kv: (kv[0].line, kv[0].col), reverse=True):
        line = lines[knob.line - 1]
        encoded = line.encode()  # ast offsets count UTF-8 bytes
        lines[knob.line - 1] = (encoded[:knob.col] + str(value).encode() + encoded[knob.end_col:]).decode()
    return "".join(lines)


RANDOM_DRAWS = 400


def variants(source: str, count: int, seed: int) -> list:
    """Up to `count` distinct (label, code): the program as is, each knob alone over its choices,
    then seeded random combinations."""
    knobs = find_knobs(source)
    base = [k.value for k in knobs]
    settings = [tuple(base)]
    for i, knob in enumerate(knobs):
        for choice in knob.choices():
            settings.append(tuple(base[:i]) + (choice,) + tuple(base[i + 1:]))
    rng = random.Random(seed)
    # a fixed number of draws (for up to 100 variants): the first N variants are the same for
    # every count >= N, so a smaller sweep with the same seed re-times a larger one's programs
    for _ in range(max(RANDOM_DRAWS, count * 4)):
        settings.append(tuple(rng.choice(k.choices()) for k in knobs))
    rest = settings[1:]
    rng.shuffle(rest)  # single-knob moves and combinations mixed: a small budget sees both
    settings = settings[:1] + rest
    out, seen = [], set()
    for values in settings:
        if values in seen:
            continue
        seen.add(values)
        label = ",".join(f"{k.name}@{k.line}:{k.col}={v}" for k, v in zip(knobs, values) if v != k.value) or "as_is"
        out.append((label, rewrite(source, knobs, list(values))))
        if len(out) >= count:
            break
    return out


def sweep_submissions(suite: str, out: str, per_program: int, seed: int, tasks=None, submissions=None,
                      goldens: bool = True) -> dict:
    """Writes the variants as submission JSONL: of each selected task's golden.py, and of each
    line of `submissions` (native JSONL) when given."""
    import fnmatch

    programs = []
    for name in sorted(os.listdir(suite)) if goldens else ():
        golden = os.path.join(suite, name, "golden.py")
        if not os.path.isfile(golden) or (tasks and not any(fnmatch.fnmatch(name, g) for g in tasks.split(","))):
            continue
        with open(golden, encoding="utf-8") as f:
            programs.append((name, f"{name}@golden", f.read()))
    if submissions:
        with open(submissions, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    item = json.loads(line)
                    programs.append((item["task"], item.get("id") or f"{item['task']}@line{number}", item["code"]))
    written = 0
    with open(out, "w", encoding="utf-8") as sink:
        for task, origin, code in programs:
            for label, variant in variants(code, per_program, seed):
                sink.write(json.dumps({"task": task, "code": variant, "id": f"{origin}#{label}"}) + "\n")
                written += 1
    return {"programs": len(programs), "variants": written, "out": out}
