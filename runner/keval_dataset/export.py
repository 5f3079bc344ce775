"""`keval dataset export`: dataset records -> `train` and `test` in makora's columns, with
keval's provenance columns beside them (docs/dataset.md)."""

import json
import os

from . import splits
from .errors import DatasetError
from .records import latency, load_records, problem_id, program_x
from .tables import FORMATS, write_rows

TRAIN_COLUMNS = ["x", "y"]
TEST_COLUMNS = ["x", "y", "problem_id", "holdout_group"]
# Beside makora's columns; JSON-valued ones (shapes, baselines_ms, reasons) are JSON text.
PROVENANCE = ["keval_problem", "suite", "suite_version", "task", "task_version", "case", "dtype",
              "shapes", "program_hash", "submission_id", "verdict", "reasons", "timer_method",
              "sample_count", "median_ms", "ci95_low_ms", "ci95_high_ms", "stop_reason", "baseline",
              "baseline_ms", "baselines_ms", "gpu", "driver", "sm_clock_mhz", "sm_clock_default_mhz",
              "torch", "triton", "keval_version", "device_mode", "quick_correctness", "run_id",
              "eval_key", "source_db", "created_at"]
JSON_FIELDS = ("shapes", "baselines_ms", "reasons")


def row_of(record: dict) -> dict:
    row = {"x": program_x(record), "y": latency(record), "keval_problem": problem_id(record),
           "program_hash": record["submission_hash"]}
    for field in PROVENANCE:
        if field in row:
            continue
        value = record.get(field)
        row[field] = json.dumps(value, sort_keys=True) if field in JSON_FIELDS and value is not None else value
    return row


def existing_outputs(out: str) -> list:
    names = [f"{split}.{fmt}" for split in ("train", "test") for fmt in FORMATS] + ["manifest.json"]
    return [os.path.join(out, n) for n in names if os.path.exists(os.path.join(out, n))]


def export(records_path: str, out: str, fmt: str, seed: int, force: bool, sources: list) -> dict:
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
    for record in unique:
        row = row_of(record)
        group = groups[record["task"]]
        if splits.in_test(group, record["task"], record["submission_hash"], seed):
            row["problem_id"], row["holdout_group"] = row["keval_problem"], group
            test.append(row)
        else:
            train.append(row)
    os.makedirs(out, exist_ok=True)
    for path in existing:
        os.remove(path)
    write_rows(train, TRAIN_COLUMNS + PROVENANCE, os.path.join(out, f"train.{fmt}"), fmt)
    write_rows(test, TEST_COLUMNS + PROVENANCE, os.path.join(out, f"test.{fmt}"), fmt)
    manifest = {
        "format": "makora triton-gpu-latency columns + keval provenance (docs/dataset.md)",
        "split": "makora", "seed": seed, "y_unit": "milliseconds (median of the timed samples)",
        "sources": sources, "records": len(records), "duplicates_dropped": len(records) - len(unique),
        "train_rows": len(train), "test_rows": len(test),
        "test_rows_by_group": {g: sum(r["holdout_group"] == g for r in test) for g in splits.HOLDOUT_GROUPS},
        "holdout_tasks": {g: sorted(t for t, v in groups.items() if v == g) for g in splits.HOLDOUT_GROUPS},
        "null_y": sum(r["y"] is None for r in train + test),
        "problems": len({r["keval_problem"] for r in train + test}),
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    return manifest
