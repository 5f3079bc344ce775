"""`keval dataset export`: dataset records -> `train` and `test` in makora's columns (each `x` one
program in makora's shape: makora_form.py), keval's provenance columns beside them, one schema
for both (schema.py), and the Hugging Face card (card.py); docs/dataset.md.

Quality runs on the way (quality.py): false `tampering` rows and exact duplicates go to
`dropped` with their reason, near copies between tasks keep their tasks in one holdout group,
each label gets an interval (intervals.py), and `quality.json` reports what was found.
"""

import collections
import json
import os

from . import intervals, quality, splits
from .card import write_cards
from .errors import DatasetError
from .machine_paths import scrub, store_name
from .near_duplicates import DEFAULT_THRESHOLD
from .records import latency, load_records, problem_id, program_x
from .schema import NAMES
from .tables import FORMATS, write_rows
from .task_sources import TaskSources

OUTPUTS = ("train", "test", "dropped")


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
    names = [f"{split}.{fmt}" for split in OUTPUTS for fmt in FORMATS] + ["manifest.json", "quality.json"]
    return [os.path.join(out, n) for n in names if os.path.exists(os.path.join(out, n))]


def _code(record: dict) -> str:
    return record["program"]


def export(records_path: str, out: str, fmt: str, seed: int, force: bool, sources: list, suites=(),
           retime=None, near_threshold: float = DEFAULT_THRESHOLD) -> dict:
    if fmt not in FORMATS:
        raise DatasetError(None, f"--format {fmt}: expected parquet or jsonl")
    if not 0 < near_threshold <= 1:
        raise DatasetError(None, f"--near-threshold {near_threshold}: expected a similarity in (0, 1]")
    existing = existing_outputs(out)
    if existing and not force:
        raise DatasetError(existing[0], "exists: an export is never overwritten (add --force)")
    second = intervals.retimed_medians(retime) if retime else None
    return export_records(load_records(records_path), out, fmt, seed, sources, suites, second, near_threshold,
                          existing)


def export_records(records: list, out: str, fmt: str, seed: int, sources: list, suites=(), second=None,
                   near_threshold: float = DEFAULT_THRESHOLD, existing=()) -> dict:
    seen, unique = set(), []
    for record in records:  # the same evaluation read from two stores (a copied keval.db)
        key = (record.get("eval_key"), record.get("case"), record.get("dtype"))
        if key in seen:
            continue
        seen.add(key)
        unique.append(record)
    kept, dropped = quality.drop_rows(unique, _code)
    clusters, pairs = quality.task_clusters(kept, _code, near_threshold)
    problems = collections.defaultdict(set)
    programs = collections.defaultdict(set)
    for record in kept:
        problems[record["task"]].add(problem_id(record))
        programs[record["task"]].add(record["submission_hash"])
    groups = splits.task_groups(list(problems), seed, clusters, {t: len(p) for t, p in problems.items()})
    in_test = {t: splits.programs_in_test(groups[t], t, programs[t], seed) for t in programs}
    tasks = TaskSources(suites)
    rows = [row_of(record, tasks) for record in kept]
    k = None
    if second is not None:
        k = intervals.spread_factor([(r["y"], second[(r["keval_problem"], r["program_hash"])]) for r in rows
                                     if r["y"] is not None and (r["keval_problem"], r["program_hash"]) in second])
    train, test = [], []
    for record, row in zip(kept, rows):
        other = (second or {}).get((row["keval_problem"], row["program_hash"]))
        row["y_low_ms"], row["y_high_ms"], row["y_interval"] = intervals.interval(
            row["y"], row.get("ci95_low_ms"), row.get("ci95_high_ms"), k, other)
        if record["submission_hash"] in in_test[record["task"]]:
            row["problem_id"], row["holdout_group"] = row["keval_problem"], groups[record["task"]]
            test.append(row)
        else:
            train.append(row)
    dropped_rows = []
    for record in dropped:
        row = row_of(record, tasks)
        row["drop_reason"] = record["drop_reason"]
        dropped_rows.append(row)
    os.makedirs(out, exist_ok=True)
    for path in existing:
        os.remove(path)
    write_rows(train, os.path.join(out, f"train.{fmt}"), fmt)
    write_rows(test, os.path.join(out, f"test.{fmt}"), fmt)
    if dropped_rows:
        write_rows(dropped_rows, os.path.join(out, f"dropped.{fmt}"), fmt, extra=("drop_reason",))
    report = quality_report(train + test, dropped_rows, clusters, pairs, groups, problems, near_threshold, second, k)
    with open(os.path.join(out, "quality.json"), "w") as f:
        json.dump(report, f, indent=2)
    forms = collections.Counter(r["x_form"] for r in train + test)
    manifest = {
        "format": "makora triton-gpu-latency columns + keval provenance (docs/dataset.md)",
        "split": "makora", "seed": seed, "y_unit": "milliseconds (median of the timed samples)",
        "sources": [store_name(s) for s in sources], "x_forms": dict(sorted(forms.items())),
        "records": len(records), "duplicates_dropped": len(records) - len(unique),
        "rows_dropped": dict(sorted(collections.Counter(r["drop_reason"].split(":")[0] for r in dropped_rows).items())),
        "train_rows": len(train), "test_rows": len(test),
        "test_rows_by_group": {g: sum(r["holdout_group"] == g for r in test) for g in splits.HOLDOUT_GROUPS},
        "holdout_tasks": {g: sorted(t for t, v in groups.items() if v == g) for g in splits.HOLDOUT_GROUPS},
        "null_y": sum(r["y"] is None for r in train + test),
        "problems": len({r["keval_problem"] for r in train + test}),
        "y_interval": dict(sorted(collections.Counter(r["y_interval"] for r in train + test if r["y_interval"]).items())),
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    write_cards(out)
    return manifest


def quality_report(rows, dropped_rows, clusters, pairs, groups, problems, threshold, second, k) -> dict:
    """quality.json: what the checks found, and that the split keeps near copies inside `full`."""
    group_sizes = {}
    for group in splits.HOLDOUT_GROUPS:
        tasks = [t for t, g in groups.items() if g == group]
        group_sizes[group] = {"tasks": len(tasks), "problems": sum(len(problems[t]) for t in tasks),
                              "rows": sum(r["holdout_group"] == group for r in rows),
                              "minimum_problems": splits.MIN_PROBLEMS[group]}
        group_sizes[group]["minimum_met"] = group_sizes[group]["problems"] >= splits.MIN_PROBLEMS[group]
    return {
        "dropped": {reason: sum(r["drop_reason"].startswith(reason) for r in dropped_rows)
                    for reason in sorted({r["drop_reason"].split(":")[0] for r in dropped_rows})},
        "near_duplicates": {"method": "MinHash (128 permutations) + LSH over 5-token shingles of the "
                                      "submitted code; comments and layout dropped, strings STR, numbers NUM",
                            "threshold": threshold,
                            "task_pairs": [{"tasks": [a, b], "similarity": s} for a, b, s in pairs],
                            "clusters": clusters,
                            "pairs_crossing_full": [[a, b] for a, b, _ in quality.crossing_pairs(pairs, groups)]},
        "holdout_groups": group_sizes,
        "intervals": dict({"spread_factor_k": k}, **(intervals.coverage_report(rows, second) if second else {})),
    }
