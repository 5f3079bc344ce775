"""Submissions to KernelBenchX tasks: its JSONL (`{"predict", "file"}`), .py files named after
their task, or folders of both, matched to the tasks of a checkout."""

import os
import re
import sys

from ..common.checkout_search import find_checkout
from ..common.matching import Match
from ..common.peer_file import split_file
from ..common.submission_files import jsonl_lines, native_line, read_text, submission_files, write_native
from .checkout import Checkout, is_checkout


def clear_code(text: str) -> str:
    """KernelBenchX's own extraction (EVAL/0_call_acc.py clear_code), then the part above the
    separator (a file may carry the test below it)."""
    code = str(text)
    if "```python" in code:
        code = code.split("```python", 1)[-1]
    if "```" in code:
        code = code.split("```", 1)[0]
    code = code.replace("<|im_end|>", "").replace("<|EOT|>", "").strip()
    return split_file(code)[0].rstrip() + "\n"


def description_index(checkout: Checkout) -> dict:
    return {re.sub(r"\s+", "", str(e.get("description", ""))): os.path.splitext(os.path.basename(e["file"]))[0]
            for e in checkout.entries if isinstance(e, dict) and isinstance(e.get("file"), str)}


class Matcher:
    """A KernelBenchX line to its task: its `task`, else its `file`'s stem, else the `Functional
    Description:` of its instruction inside exactly one task's description (KernelBenchX's own
    rule; needs the checkout). Without a checkout, names are taken as given."""

    def __init__(self, checkout):
        self.stems = checkout.stems() if checkout else None
        self.descriptions = description_index(checkout) if checkout else None

    def known(self, match: Match) -> Match:
        """match, unless it names a task the checkout does not have."""
        if match.task and self.stems is not None and match.task not in self.stems:
            return Match(None, f"{match.task!r} is not a KernelBenchX task")
        return match

    def match(self, item: dict) -> Match:
        if isinstance(item.get("task"), str):
            return self.known(Match(item["task"], "task"))
        if isinstance(item.get("file"), str):
            return self.known(Match(os.path.splitext(os.path.basename(item["file"]))[0], "file"))
        text_key = next((k for k in ("instruction", "prompt", "query") if isinstance(item.get(k), str)), None)
        if text_key is None or "Functional Description: " not in item[text_key]:
            return Match(None, "no \"file\" and no instruction with \"Functional Description: \"")
        if self.descriptions is None:
            return Match(None, "matching by instruction needs the checkout (--suite kernelbenchx:CHECKOUT)")
        func = item[text_key].split("Functional Description: ")[-1].split("Wrapper Entry Information:")[0]
        key = re.sub(r"\s+", "", func)
        hits = {s for d, s in self.descriptions.items() if key and key in d}
        if len(hits) == 1:
            return self.known(Match(hits.pop(), "instruction"))
        return Match(None, f"its description matches {len(hits)} tasks")


def match_submissions(source: str, suite: str = None) -> list:
    """One record per submission (a `.py` file, a non-blank JSONL line), in order: `id`, `task`
    (a stem; None when unmatched, `how` saying why), `how`, `code` (as keval takes it), `path`,
    `line` (None for a `.py`), and the JSONL object as `item` or the `.py` text as `text`."""
    root = find_checkout(source, suite, is_checkout)
    matcher = Matcher(Checkout(root) if root else None)
    records = []

    def emit(match, code, ident, **where):
        records.append({"id": ident, "task": match.task or None, "how": match.how, "code": code, **where})

    for path in submission_files(source):
        stem = os.path.splitext(os.path.basename(path))[0]
        text = read_text(path)
        if path.endswith(".py"):
            emit(matcher.known(Match(stem, "file name")), split_file(text)[0], stem, path=path, line=None, text=text)
            continue
        for number, item, problem in jsonl_lines(text):
            ident = f"{stem}:{number}"
            where = {"path": path, "line": number, "item": None}
            if problem:
                emit(Match(None, problem), "", ident, **where)
                continue
            if not isinstance(item, dict) or not isinstance(item.get("predict", item.get("code")), str):
                emit(Match(None, "no \"predict\" (or \"code\") text"), "", ident, **where)
                continue
            where["item"] = item
            ident = str(item["id"]) if isinstance(item.get("id"), (str, int)) else ident
            emit(matcher.match(item), clear_code(item.get("predict", item.get("code"))), ident, **where)
    return records


def write_submissions(source: str, out: str, suite: str = None) -> dict:
    lines, counts = [], {}
    for record in match_submissions(source, suite):
        task, how = record["task"], record["how"]
        counts[how if task else "unmatched"] = counts.get(how if task else "unmatched", 0) + 1
        if not task:
            print(f"kernelbenchx: {record['id']}: {how}", file=sys.stderr)
        lines.append(native_line(task, record["code"], record["id"], how))
    write_native(out, lines)
    return counts
