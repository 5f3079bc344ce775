"""Dataset records as `keval` reads them from keval.db (src/store/dataset_records.h), and the
makora form of each: problem_id, x (makora_form.py), y."""

import json

from . import makora_form
from .errors import DatasetError

REQUIRED = ("task", "program", "verdict", "latency_ms", "submission_hash")


def load_records(path: str) -> list:
    records = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise DatasetError(f"{path}:{number}", f"not JSON ({e.msg})") from None
            for field in REQUIRED:
                if field not in record:
                    raise DatasetError(f"{path}:{number}", f"record has no field `{field}`")
            records.append(record)
    return records


def problem_id(record: dict) -> str:
    """One computation on fixed shapes: suite/task/case/dtype (a KernelBench problem has one case)."""
    parts = [record.get("suite") or "keval", record["task"]]
    parts += [record[k] for k in ("case", "dtype") if record.get(k)]
    return "/".join(parts)


def has_future_import(code: str) -> bool:
    """`from __future__` must open a file: such code cannot follow the problem part."""
    return "__future__" in code and any(line.lstrip().startswith("from __future__")
                                        for line in code.splitlines())


def program_x(record: dict, sources) -> tuple:
    """makora's `x` (makora_form.py) and its form: `keval_task` and `kernelbench` run on their
    own; `code_only:<why>` is the code after a comment naming the problem."""
    code, problem = record["program"], problem_id(record)
    if record.get("program_x"):
        return makora_form.kernelbench(record["program_x"], code), "kernelbench"
    task, why = sources.find(record)
    if task is not None and not (record.get("case") and record.get("dtype") and record.get("shapes") is not None):
        task, why = None, "no_case_shapes"
    if task is not None and has_future_import(code):
        task, why = None, "future_import"
    if task is None:
        return makora_form.code_only(problem, record.get("shapes"), record.get("dtype"), code), f"code_only:{why}"
    return makora_form.keval_task(task, record, problem), "keval_task"


def latency(record: dict):
    """makora's `y`: the candidate's median time in milliseconds; None unless it passed."""
    value = record.get("latency_ms")
    if record.get("verdict") != "pass" or value is None:
        return None
    return float(value)
