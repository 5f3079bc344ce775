"""The export's one schema: the same columns and types in train and test (and in every config),
so a loader that reads the splits together finds one table (docs/dataset.md, "Columns").

makora's train has only x and y, its test adds problem_id and holdout_group; here train carries
those two as nulls rather than fewer columns: datasets.load_dataset refuses splits whose columns
differ. Types are fixed per column, never inferred from the rows: an all-null column in one
split would otherwise be typed differently from the other split's.
"""

import json

# (column, type): "string", "float64", "int64" or "bool" (Arrow's and Hugging Face's names).
COLUMNS = [
    ("x", "string"), ("y", "float64"), ("problem_id", "string"), ("holdout_group", "string"),
    ("x_form", "string"), ("keval_problem", "string"), ("suite", "string"), ("suite_version", "string"),
    ("task", "string"), ("task_version", "int64"), ("case", "string"), ("dtype", "string"),
    ("shapes", "string"), ("program_hash", "string"), ("submission_id", "string"), ("verdict", "string"),
    ("reasons", "string"), ("timer_method", "string"), ("sample_count", "int64"), ("median_ms", "float64"),
    ("ci95_low_ms", "float64"), ("ci95_high_ms", "float64"), ("stop_reason", "string"),
    ("baseline", "string"), ("baseline_ms", "float64"), ("baselines_ms", "string"), ("gpu", "string"),
    ("driver", "string"), ("sm_clock_mhz", "float64"), ("sm_clock_default_mhz", "float64"),
    ("torch", "string"), ("triton", "string"), ("keval_version", "string"), ("device_mode", "string"),
    ("quick_correctness", "bool"), ("run_id", "int64"), ("eval_key", "string"), ("source_db", "string"),
    ("created_at", "string"), ("y_low_ms", "float64"), ("y_high_ms", "float64"), ("y_interval", "string"),
]
NAMES = [name for name, _ in COLUMNS]
TYPES = dict(COLUMNS)
JSON_TEXT = ("shapes", "baselines_ms", "reasons")  # JSON values stored as JSON text


def coerce(column: str, value):
    """value as the column's type (None stays None)."""
    if value is None:
        return None
    kind = TYPES[column]
    if kind == "string":
        if column in JSON_TEXT or not isinstance(value, str):
            return json.dumps(value, sort_keys=True)
        return value
    if kind == "float64":
        return float(value)
    if kind == "int64":
        return int(value)
    return bool(value)


def arrow_schema():
    import pyarrow as pa

    arrow = {"string": pa.string(), "float64": pa.float64(), "int64": pa.int64(), "bool": pa.bool_()}
    return pa.schema([(name, arrow[kind]) for name, kind in COLUMNS])
