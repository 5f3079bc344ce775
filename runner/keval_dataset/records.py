"""Dataset records as `keval` reads them from keval.db (src/store/dataset_records.h), and the
makora form of each: problem_id, x, y."""

import json

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


def program_x(record: dict) -> str:
    """makora's `x`: the stored makora form (KernelBench-format problems), else the program with
    a first comment line that names its problem and shapes, so `x` alone tells rows apart."""
    if record.get("program_x"):
        return record["program_x"]
    shapes = json.dumps(record.get("shapes"), sort_keys=True) if record.get("shapes") is not None else "null"
    header = (f"# keval problem: {problem_id(record)}; shapes {shapes}; dtype {record.get('dtype')}\n")
    return header + record["program"]


def latency(record: dict):
    """makora's `y`: the candidate's median time in milliseconds; None unless it passed."""
    value = record.get("latency_ms")
    if record.get("verdict") != "pass" or value is None:
        return None
    return float(value)
