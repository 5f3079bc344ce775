"""Reading submissions as the peers write them (.py files, JSON lines, folders of both) and
writing keval's native JSONL."""

import json
import os

from .errors import AdapterError


def submission_files(source: str) -> list:
    """The .py and .jsonl files of `source`: the file itself, or a folder's, recursively, in
    sorted order."""
    source = os.path.abspath(source)
    if os.path.isdir(source):
        files = []
        for folder, dirs, names in os.walk(source):
            dirs.sort()
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".py", ".jsonl"))]
        return files
    if os.path.isfile(source):
        return [source]
    raise AdapterError(f"{source}: no such file or folder")


def read_text(path: str) -> str:
    """A submission file's text; bytes that are not UTF-8 become U+FFFD (the code is judged,
    not the file)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def jsonl_lines(text: str) -> list:
    """[(line number, parsed value, problem)] for every non-blank line; problem ("invalid JSON:
    ...") is None when the line parses. Lines end at newlines only, as keval's own reader
    counts them (its origin FILE:LINE)."""
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line), None))
        except json.JSONDecodeError as e:
            out.append((number, None, f"invalid JSON: {e.msg}"))
    return out


def native_line(task, code: str, ident: str, why: str) -> str:
    """One line of keval's JSONL. An unmatched submission keeps its place: keval reports an unknown
    task as bad_submission, with this text as the task's name."""
    return json.dumps({"task": task or f"(no task: {why})", "code": code, "id": ident}, ensure_ascii=False)


def write_native(out: str, lines: list) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
