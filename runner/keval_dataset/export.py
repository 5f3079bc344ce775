"""`keval dataset export`: dataset records -> `train` and `test` in makora's columns (each `x` one
program in makora's shape: makora_form.py), keval's provenance columns beside them, one schema
for both (schema.py), and the Hugging Face card (card.py); docs/dataset.md."""

import collections
import json
import os

from . import splits
from .card import write_cards
from .errors import DatasetError
from .machine_paths import scrub, store_name
from .records import latency, load_records, problem_id, program_x
from .schema import NAMES
from .tables import FORMATS, write_rows
from .task_sources import TaskSources


def row_of(record: dict, sources: TaskSources) -> dict:
    row = {field: record.get(field) for field in NAMES}
    row["x"], row["x_form"] = program_x(record, sources)
    row["y"] = latency(record)
    row["keval_problem"] = problem_id(record)
    row["program_hash"] = record["submission_hash"]
    row["problem_id"] = row["holdout_group"] = None  # test's columns; null in train (schema.py)
    if isinstance(record.get("reasons"), list):
        row["reasons"] = [scrub(reason) for reason in record["reasons"]]
    if record.get("source_db"):
        row["source_db"] = store_name(record["source_db"])
    return row


def existing_outputs(out: str) -> list:
    names = [f"{split}.{fmt}" for split in ("train", "test") for fmt in FORMATS] + ["manifest.json"]
    return [os.path.join(out, n) for n in names if os.path.exists(os.path.join(out, n))]


def export(records_path: str, out: str, fmt: str, seed: int, force: bool, sources: list, suites=()) -> dict:
    if fmt not in FORMATS:
        raise DatasetError(None, f"--format {fmt}: expected parquet or jsonl")
    existing = existing_outputs(out)
    if existing and not force:
        raise DatasetError(existing[0], "exists: an export is never overwritten (add --force)")
    records = load_records(records_path)
    seen, unique = set(), []
    for record in records:  # the same evaluation read from two stores (a copied keval.db)
        key = (record.get("eval_key"), record.get("case"), record.get("dtype"))
        if key in seen:
            continue
        seen.add(key)
        unique.append(record)
    groups = splits.task_groups([r["task"] for r in unique], seed)
    train, test = [], []
    tasks = TaskSources(suites)
    for record in unique:
        row = row_of(record, tasks)
        group = groups[record["task"]]
        if splits.in_test(group, record["task"], record["submission_hash"], seed):
            row["problem_id"], row["holdout_group"] = row["keval_problem"], group
            test.append(row)
        else:
            train.append(row)
    os.makedirs(out, exist_ok=True)
    for path in existing:
        os.remove(path)
    write_rows(train, os.path.join(out, f"train.{fmt}"), fmt)
    write_rows(test, os.path.join(out, f"test.{fmt}"), fmt)
    forms = collections.Counter(r["x_form"] for r in train + test)
    manifest = {
        "format": "makora triton-gpu-latency columns + keval provenance (docs/dataset.md)",
        "split": "makora", "seed": seed, "y_unit": "milliseconds (median of the timed samples)",
        "sources": [store_name(s) for s in sources], "x_forms": dict(sorted(forms.items())),
        "records": len(records), "duplicates_dropped": len(records) - len(unique),
        "train_rows": len(train), "test_rows": len(test),
        "test_rows_by_group": {g: sum(r["holdout_group"] == g for r in test) for g in splits.HOLDOUT_GROUPS},
        "holdout_tasks": {g: sorted(t for t, v in groups.items() if v == g) for g in splits.HOLDOUT_GROUPS},
        "null_y": sum(r["y"] is None for r in train + test),
        "problems": len({r["keval_problem"] for r in train + test}),
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    write_cards(out)
    return manifest
