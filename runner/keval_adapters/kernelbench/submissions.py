"""Submissions to KernelBench problems: KernelBench generations (only `ModelNew`), native JSONL,
and single files holding Model and ModelNew, matched to the problems of a checkout."""

import ast
import os
import re
import sys

from ..common.checkout_search import find_checkout
from ..common.errors import AdapterError
from ..common.matching import Match
from ..common.submission_files import jsonl_lines, native_line, read_text, submission_files, write_native
from .problems import MISSING_CHECKOUT, is_checkout, list_problems


CODE_KEYS = ("code", "predict", "completion", "response", "generation", "output", "kernel_code",
             "custom_code", "model_new_code", "kernel", "src", "text")
LEVEL_KEYS = ("level", "level_id")
PROBLEM_KEYS = ("problem_id", "problem", "pid", "problem_idx", "task_id")
REFERENCE_KEYS = ("ref_arch_src", "reference", "ref_code", "original_code", "pytorch_code")
FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.S)


def extract_code(text: str) -> str:
    """A model's reply: the fenced block that defines ModelNew (else the first Python one)."""
    blocks = FENCE_RE.findall(text or "")
    if not blocks:
        return text or ""
    for lang, body in blocks:
        if "class ModelNew" in body:
            return body
    for lang, body in blocks:
        if lang.lower() in ("python", "py", ""):
            return body
    return blocks[0][1]


def _strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def problem_keys(text: str) -> dict:
    """AST fingerprints of a file's `class Model` (with and without docstrings) and of the rest
    (get_inputs, get_init_inputs and module-level assignments): formatting and comments do not
    count, so a reformatted copy of a problem still matches it."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    keys = {}
    rest = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            keys["model"] = ast.dump(node, annotate_fields=False)
            keys["model_nodoc"] = ast.dump(_strip_docstrings(ast.parse(ast.unparse(node))).body[0], annotate_fields=False)
        elif isinstance(node, ast.FunctionDef) and node.name in ("get_inputs", "get_init_inputs"):
            rest.append(ast.dump(_strip_docstrings(ast.parse(ast.unparse(node))).body[0], annotate_fields=False))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            rest.append(ast.dump(node, annotate_fields=False))
    if rest:
        keys["rest"] = "\n".join(sorted(rest))
    return keys


class Matcher:
    """A submission to its problem by the item's own keys, else by the AST of a `class Model` it
    holds (common/matching.py's contract)."""

    def __init__(self, problems: list):
        self.problems = problems
        self.by_name = {p.name: p for p in problems}
        self.by_level_id = {(p.level, p.pid): p for p in problems}
        self.keys = {}
        for p in problems:
            with open(p.path, encoding="utf-8") as f:
                self.keys[p.name] = problem_keys(f.read())

    def by_text(self, text: str):
        """(task, how) for a text holding a copy of a problem's Model, or (None, why)."""
        mine = problem_keys(text)
        if "model" not in mine:
            return None, "no `class Model` in the code to match against the problems"
        for field in ("model", "model_nodoc"):
            hits = [n for n, k in self.keys.items() if k.get(field) == mine[field]]
            if len(hits) > 1 and "rest" in mine:
                narrowed = [n for n in hits if self.keys[n].get("rest") == mine["rest"]]
                hits = narrowed or hits
            if len(hits) == 1:
                return hits[0], "model source"
            if len(hits) > 1:
                return None, f"its Model matches {len(hits)} problems ({', '.join(hits[:4])})"
        return None, "its Model matches no problem of the selected levels"

    def match(self, item: dict) -> Match:
        code = code_of(item)
        if code is None:
            return Match(None, f"no code (looked for {', '.join(CODE_KEYS[:4])}, ...)")
        file_name = str(item.get("file", item.get("path", "")))
        task = item.get("task")
        if isinstance(task, str) and task in self.by_name:
            return Match(task, "task")
        level = next((item[k] for k in LEVEL_KEYS if k in item), None)
        pid = next((item[k] for k in PROBLEM_KEYS if k in item), None)
        if level is None or pid is None:
            m = re.search(r"(?:level|^l)[_-]?(\d+)[_-](?:problem[_-]?)?(\d+)(?:_|\.|$)", file_name, re.I)
            if m and level is None and pid is None:
                level, pid = m.group(1), m.group(2)
        try:
            if level is not None and pid is not None:
                hit = self.by_level_id.get((int(str(level).lower().lstrip("level")), int(pid)))
                if hit:
                    return Match(hit.name, "level and problem id")
        except (TypeError, ValueError):
            pass
        for key in REFERENCE_KEYS:
            if isinstance(item.get(key), str):
                found, how = self.by_text(item[key])
                if found:
                    return Match(found, f"{key} text")
        found, why = self.by_text(code)
        if found:
            return Match(found, why)
        if isinstance(task, str) and task:
            return Match(None, f"task {task!r} is not in the suite")
        return Match(None, why)


def read_items(source: str) -> list:
    """[(origin, item dict or None, problem)] from a .py, a .jsonl or a folder of them; a .py
    file's item is {"code": its text, "file": its name}."""
    files = submission_files(source)
    if not files:
        raise AdapterError(f"{os.path.abspath(source)}: no .py or .jsonl files")
    items = []
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        text = read_text(path)
        if path.endswith(".py"):
            items.append((stem, {"code": text, "file": os.path.basename(path)}, None))
            continue
        for number, item, problem in jsonl_lines(text):
            if problem is None and not isinstance(item, dict):
                problem = "not a JSON object"
            items.append((f"{stem}:{number}", None if problem else item, problem))
    return items


def code_of(item: dict):
    for key in CODE_KEYS:
        if isinstance(item.get(key), str) and item[key].strip():
            return extract_code(item[key])
    for value in item.values():  # any text field that holds a ModelNew
        if isinstance(value, str) and "class ModelNew" in value:
            return extract_code(value)
    return None


def match_submissions(source: str, suite: str = None, levels=None) -> list:
    """One record per submission (a `.py` file, a non-blank JSONL line), in order: `id` (as
    keval's results name it), `task` (None when unmatched), `how` (or why not), `code`."""
    checkout = find_checkout(source, suite, is_checkout, MISSING_CHECKOUT)
    matcher = Matcher(list_problems(checkout, levels))
    records = []
    for origin, item, problem in read_items(source):
        ident = item.get("id") if item and isinstance(item.get("id"), (str, int)) else origin
        task, how = matcher.match(item) if item is not None else (None, problem)
        code = code_of(item) if item is not None else None
        records.append({"id": str(ident), "task": task, "how": how, "code": code or "", "origin": origin})
    return records


def write_submissions(source: str, out: str, suite: str = None, levels=None) -> dict:
    lines, counts = [], {}
    for record in match_submissions(source, suite, levels):
        task, how = record["task"], record["how"]
        key = how if task else "unmatched"
        counts[key] = counts.get(key, 0) + 1
        if not task:
            print(f"kernelbench: {record['origin']}: {how}", file=sys.stderr)
        lines.append(native_line(task, record["code"], record["id"], how))
    write_native(out, lines)
    return counts
