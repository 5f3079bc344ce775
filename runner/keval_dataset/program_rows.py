"""The few columns of a dataset's rows that the predictor's launches and compiled kernels are
computed from (launch_table.py, compile_table.py): the submitted code, suite, task, case and
dtype, and the submission id that marks a golden row. `compile-rows` writes them as JSON lines,
one per distinct program and case, so that a machine without pyarrow (a borrowed GPU machine
with torch and Triton alone) can build the feature cache (compile_cache.py) without the Parquet
export.
"""

import json
import os

from .errors import DatasetError
from .golden_distance import is_golden_row
from .launch_table import key
from .makora_form import candidate_code
from .tables import read_rows, split_path

COLUMNS = ("x", "suite", "task", "case", "dtype", "submission_id")
SPLITS = ("train", "test")  # the rows any figure computes features of (retime's are the same programs)


def read(data: str) -> list:
    """The rows of an export folder's splits, or of a file (compile-rows' JSON lines, or one split)."""
    paths = [split_path(data, split) for split in SPLITS] if os.path.isdir(data) else [data]
    rows = []
    for path in paths:
        try:
            rows += read_rows(path, list(COLUMNS))
        except ModuleNotFoundError as error:
            raise DatasetError(path, f"cannot read Parquet here ({error}): write the rows as JSON lines "
                                     "with `compile-rows` where pyarrow is, and pass that file") from None
    return rows


def distinct(rows: list) -> list:
    """One row per program and case (and golden or not), with only COLUMNS and the code alone as `x`."""
    out = {}
    for row in rows:
        slim = {c: row.get(c) for c in COLUMNS}
        slim["x"] = candidate_code(row.get("x") or "")
        if not is_golden_row(row):
            slim["submission_id"] = None
        out.setdefault((key(row), is_golden_row(row)), slim)
    return list(out.values())


def export(data: str, out: str) -> dict:
    rows = read(data)
    chosen = distinct(rows)
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(row) + "\n" for row in chosen)
    return {"rows": len(rows), "written": len(chosen), "out": out}
