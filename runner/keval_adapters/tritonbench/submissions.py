"""Submissions to TritonBench tasks: its LLM_generated/*.jsonl (lines {instruction|prompt,
predict, label}), matched to the tasks of a checkout by exact text."""

import os
import re

from ..common.checkout_search import find_checkout
from ..common.errors import AdapterError
from ..common.matching import Match
from ..common.submission_files import jsonl_lines, native_line, read_text, write_native
from .checkout import MISSING_CHECKOUT, Checkout, is_checkout, normalise, task_name


CHAT_WRAPPERS = [
    re.compile(r"^<\|im_start\|>system\n.*?<\|im_end\|>\s*<\|im_start\|>user\n", re.S),
    re.compile(r"<\|im_end\|>\s*<\|im_start\|>assistant\s*$"),
    re.compile(r"^<\|user\|>\s*"),
    re.compile(r"(</s>)?\s*<\|assistant\|>\s*$"),
    re.compile(r"^Human:\s*"),
    re.compile(r"\n\s*Assistant:\s*$"),
]


def prompt_text(text: str) -> str:
    """The TritonBench instruction inside a model's prompt: chat-template markers and a RAG
    prompt's retrieved documents ("Query: ...\\n\\nDocument 1: ...") removed."""
    text = str(text).strip()
    for pattern in CHAT_WRAPPERS:
        text = pattern.sub("", text).strip()
    if text.startswith("Query:"):
        text = text[len("Query:"):]
        cut = text.find("\nDocument 1:")
        if cut >= 0:
            text = text[:cut]
    return text.strip()


def instruction_key(text: str) -> str:
    # the T prompts exist with and without TritonBench's "Trion" typo
    return normalise(prompt_text(text)).replace("Trion programming", "Triton programming")


def t_description(text: str):
    found = re.search(r"Functional Description:(.*?)Wrapper Entry Information:", prompt_text(text), re.S)
    return normalise(found.group(1)) if found else None


class Matcher:
    """A submission line to its task by exact (whitespace-normalised) text, never substrings
    (common/matching.py's contract)."""

    def __init__(self, checkout: Checkout):
        self.kind = checkout.kind
        self.by_instruction, self.by_label, self.by_description, self.by_file = {}, {}, {}, {}
        for file in checkout.files():
            name = task_name(file)
            self.by_file[file[:-3]] = name
            for text in checkout.instructions(file):
                self._add(self.by_instruction, instruction_key(text), name)
            entry = checkout.entries.get(file, {})
            if entry.get("output"):
                self._add(self.by_label, normalise(entry["output"]), name)
            if entry.get("description"):
                self._add(self.by_description, normalise(entry["description"]), name)

    @staticmethod
    def _add(index, key, name):
        if key:
            index.setdefault(key, set()).add(name)

    @staticmethod
    def _one(index, key):
        found = index.get(key) if key else None
        return next(iter(found)) if found and len(found) == 1 else None

    def match(self, item: dict) -> Match:
        for key in ("task", "file"):
            if isinstance(item.get(key), str) and item[key].strip():
                stem = os.path.basename(item[key].strip().replace("\\", "/"))
                stem = stem[:-3] if stem.endswith(".py") else stem
                if stem in self.by_file:
                    return Match(self.by_file[stem], key)
        instruction = item.get("instruction", item.get("prompt"))
        if isinstance(instruction, str):
            found = self._one(self.by_instruction, instruction_key(instruction))
            if found:
                return Match(found, "instruction")
            found = self._one(self.by_description, t_description(instruction))
            if found:
                return Match(found, "description")
        if isinstance(item.get("label"), str):
            found = self._one(self.by_label, normalise(item["label"]))
            if found:
                return Match(found, "label")
        return Match(None, f"its instruction matches no tritonbench-{self.kind.lower()} task exactly")


def match_submissions(source: str, kind: str, suite: str = None) -> list:
    """One record per non-blank line: line, id, task and how (None when unmatched), reason (why
    not), item."""
    if not os.path.isfile(source):
        raise AdapterError(f"{source}: no such submissions file")
    checkout = Checkout(find_checkout(source, suite, is_checkout, MISSING_CHECKOUT), kind)
    matcher = Matcher(checkout)
    other = None
    stem = os.path.splitext(os.path.basename(source))[0]
    records = []
    for number, item, problem in jsonl_lines(read_text(source)):
        if problem is None and not isinstance(item, dict):
            item, problem = None, "not a JSON object"
        record = {"line": number, "id": f"{stem}:{number}", "task": None, "how": None, "item": item}
        if item is None:
            record["reason"] = problem
            records.append(record)
            continue
        match = matcher.match(item)
        if match.task:
            record["task"], record["how"] = match
        else:
            reason = match.how
            if other is None:
                other_kind = "T" if kind == "G" else "G"
                try:
                    other = Matcher(Checkout(checkout.root, other_kind))
                except AdapterError:
                    other = False
            if other and other.match(item).task:
                reason += f" (it is tritonbench-{other.kind.lower()} task {other.match(item).task})"
            record["reason"] = reason
        records.append(record)
    return records


def write_submissions(source: str, out: str, kind: str, suite: str = None) -> dict:
    lines, counts = [], {}
    last = 0
    for record in match_submissions(source, kind, suite):
        lines += [""] * (record["line"] - last - 1)  # keep line numbers: keval's origin is FILE:LINE
        last = record["line"]
        item = record["item"] or {}
        code = item.get("predict", item.get("code"))
        lines.append(native_line(record["task"], code if isinstance(code, str) else "", record["id"],
                                 record.get("reason")))
        counts[record["how"] or "unmatched"] = counts.get(record["how"] or "unmatched", 0) + 1
    write_native(out, lines)
    return counts
