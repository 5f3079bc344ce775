"""`python -m keval_dataset rebuild`: an earlier export's rows read back as records and exported
again with today's form, quality checks and split (docs/dataset.md, "Rebuilding an export"), for
a dataset whose keval.db is gone (data/keval-latency-h200-v1 was made on a lent GPU machine).

Rows of every export form come back: `x` with the delimiter gives its code after it; an older
`x` (one `# keval problem:` line, then the code) gives the code after that line.
"""

import json
import os

from . import intervals
from .errors import DatasetError
from .export import export_records, existing_outputs
from .makora_form import DELIMITER
from .near_duplicates import DEFAULT_THRESHOLD
from .tables import read_rows, split_path

JSON_FIELDS = ("shapes", "reasons", "baselines_ms")


def code_and_problem(row: dict) -> tuple:
    """(the submitted code, makora's stored problem part + code for a kernelbench row, else None)."""
    x = row.get("x") or ""
    head, sep, tail = x.partition(DELIMITER + "\n")
    if sep:
        return tail, (head + tail if row.get("x_form") == "kernelbench" else None)
    if x.startswith("# keval problem:"):
        return x.split("\n", 1)[1] if "\n" in x else "", None
    return x, None


def record_of(row: dict, where: str) -> dict:
    record = dict(row)
    for field in JSON_FIELDS:
        if isinstance(record.get(field), str):
            try:
                record[field] = json.loads(record[field])
            except json.JSONDecodeError:
                raise DatasetError(where, f"field `{field}`: not JSON text") from None
    record["program"], record["program_x"] = code_and_problem(row)
    record["submission_hash"] = row.get("program_hash")
    if not record["submission_hash"] or not row.get("task"):
        raise DatasetError(where, "field `program_hash` or `task`: missing (not a keval export)")
    record["latency_ms"] = row.get("y") if row.get("y") is not None else row.get("median_ms")
    return record


def rebuild(source: str, out: str, fmt: str, seed: int, force: bool, suites=(), retime=None,
            near_threshold: float = DEFAULT_THRESHOLD) -> dict:
    if os.path.abspath(source) == os.path.abspath(out):
        raise DatasetError(out, "--out is the --from-export folder: rebuild into another folder")
    existing = existing_outputs(out)
    if existing and not force:
        raise DatasetError(existing[0], "exists: an export is never overwritten (add --force)")
    records = []
    for split in ("train", "test", "dropped"):
        try:
            path = split_path(source, split)
        except DatasetError:
            if split == "dropped":
                continue
            raise
        records += [record_of(row, path) for row in read_rows(path)]
    sources = []
    manifest = os.path.join(source, "manifest.json")
    if os.path.exists(manifest):
        with open(manifest, encoding="utf-8") as f:
            sources = json.load(f).get("sources", [])
    second = intervals.retimed_medians(retime) if retime else None
    return export_records(records, out, fmt, seed, sources, suites, second, near_threshold, existing)
