"""The documents the one-shot example is drawn from: the suite's goldens (every task's, the
task itself excluded at query time) and a peer's corpus (a checkout, or a JSON/JSONL file)."""
import json
import os

from .errors import GenerateError
from .retrieval import Document
from .task_text import TaskText

HARNESS_SEPARATOR = "#" * 146  # TritonBench and KernelBenchX append their test after it
CODE_FIELDS = ("code", "output", "after_code", "label", "predict")
TEXT_FIELDS = ("instruction", "description", "prompt", "input")
# Corpora inside a checkout: TritonBench's RAG data, KernelBenchX's kbx_corpus.
PEER_FILES = ("data/train_crawl.json", "data/train_synth.json", "data/kbx_corpus/all_records.jsonl")


def golden_documents(tasks: list) -> list:
    return [Document(id=f"golden:{t.name}", task=t.name, instruction=t.instruction, code=t.golden)
            for t in tasks if t.golden.strip()]


def task_of(item: dict) -> str:
    for field in ("task", "task_id", "file"):
        value = item.get(field)
        if isinstance(value, str) and value:
            return os.path.splitext(os.path.basename(value.replace("\\", "/")))[0]
    return ""


def items_of(path: str) -> list:
    try:
        with open(path, encoding="utf-8") as f:
            if path.endswith(".jsonl"):
                out = []
                for number, line in enumerate(f, 1):
                    if line.strip():
                        try:
                            out.append(json.loads(line))
                        except json.JSONDecodeError as e:
                            raise GenerateError(f"{path}:{number}", f"invalid JSON: {e.msg}")
                return out
            data = json.load(f)
    except OSError as e:
        raise GenerateError(path, f"cannot read the corpus: {e}")
    except json.JSONDecodeError as e:
        raise GenerateError(path, f"invalid JSON: {e.msg} (line {e.lineno})")
    if not isinstance(data, list):
        raise GenerateError(path, "the corpus must be a JSON list of objects (or JSONL)")
    return data


def file_documents(path: str) -> list:
    documents = []
    name = os.path.basename(path)
    for index, item in enumerate(items_of(path)):
        if not isinstance(item, dict):
            raise GenerateError(f"{path}: item {index}", "not a JSON object")
        code = next((item[f] for f in CODE_FIELDS if isinstance(item.get(f), str) and item[f].strip()), "")
        if not code:
            continue
        code = code.split(HARNESS_SEPARATOR)[0]  # what the model wrote, not the peer's appended test
        text = next((item[f] for f in TEXT_FIELDS if isinstance(item.get(f), str)), "")
        documents.append(Document(id=f"peer:{name}:{index}", task=task_of(item), instruction=text, code=code))
    return documents


def checkout_documents(checkout: str) -> list:
    """The corpus files a peer checkout has (none is fine: TritonBench's RAG data is optional)."""
    return [d for rel in PEER_FILES if os.path.isfile(os.path.join(checkout, rel))
            for d in file_documents(os.path.join(checkout, rel))]


def peer_documents(path: str) -> list:
    """A checkout (its known corpus files that are present) or one JSON/JSONL file."""
    if os.path.isdir(path):
        files = [os.path.join(path, rel) for rel in PEER_FILES if os.path.isfile(os.path.join(path, rel))]
        if not files:
            raise GenerateError(path, "no corpus in this folder (looked for " + ", ".join(PEER_FILES) + ")")
        return [d for f in files for d in file_documents(f)]
    if not os.path.isfile(path):
        raise GenerateError(path, "no such corpus file or folder (--corpus)")
    return file_documents(path)
