"""Reading and writing the dataset's tables as Parquet (pyarrow) or JSON lines."""

import json
import os

from .errors import DatasetError
from .schema import NAMES, arrow_schema, coerce

FORMATS = ("parquet", "jsonl")


def write_rows(rows: list, path: str, fmt: str, extra=()) -> None:
    """rows in the export's one schema (schema.py): every column, typed, in its order; then the
    string columns named in `extra` (dropped rows' `drop_reason`)."""
    if fmt == "jsonl":
        with open(path, "w", encoding="utf-8") as out:
            for row in rows:
                line = {c: coerce(c, row.get(c)) for c in NAMES}
                line.update({c: row.get(c) for c in extra})
                out.write(json.dumps(line) + "\n")
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {c: [coerce(c, row.get(c)) for row in rows] for c in NAMES}
    columns.update({c: [row.get(c) for row in rows] for c in extra})
    schema = arrow_schema()
    for c in extra:
        schema = schema.append(pa.field(c, pa.string()))
    pq.write_table(pa.Table.from_pydict(columns, schema=schema), path)


def read_rows(path: str, columns=None) -> list:
    """Rows of a .parquet or .jsonl file as dicts (only `columns` when given)."""
    if not os.path.exists(path):
        raise DatasetError(path, "no such file")
    if path.endswith(".jsonl"):
        rows = []
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise DatasetError(f"{path}:{number}", f"not JSON ({e.msg})") from None
        return rows
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=columns)
    except Exception as e:  # pyarrow raises several types for a file that is no Parquet
        raise DatasetError(path, f"not a readable Parquet file ({str(e).splitlines()[0]})") from None
    return table.to_pylist()


def column_names(path: str) -> list:
    if path.endswith(".jsonl"):
        rows = read_rows(path)
        return list(rows[0].keys()) if rows else []
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(path).names)
    except Exception as e:
        raise DatasetError(path, f"not a readable Parquet file ({str(e).splitlines()[0]})") from None


def split_path(folder: str, split: str) -> str:
    """DIR/train.parquet or DIR/train.jsonl, whichever exists (Parquet first)."""
    for fmt in FORMATS:
        path = os.path.join(folder, f"{split}.{fmt}")
        if os.path.exists(path):
            return path
    raise DatasetError(os.path.join(folder, f"{split}.parquet"), "no such file (nor .jsonl): not a keval dataset export")
