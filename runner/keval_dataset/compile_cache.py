"""`python -m keval_dataset compile-cache`: the predictor's feature cache of a dataset, its dry
launches and its compiled kernels (feature_table.py's LAUNCHES and COMPILED), built in one
folder with torch and Triton alone, for the figures to read later through $KEVAL_FEATURE_CACHE.

It is meant for a machine with many cores and no pyarrow (a borrowed GPU machine: its 16 cores
compile the ~2,200 kernels of keval-latency-h200-v1 in minutes, which take a 2-core machine
about half an hour): `workers` children at once, every answer appended to the folder as it
comes, and a wall-clock deadline that stops them all in time, so a time-limited call brings
back what it has and a second call with the same folder does only the rest. A folder holding
kernels of another Triton is refused before any work (compile_stamp.py).
"""

import collections
import os
import time

from . import child_batch, compile_stamp, compile_table, launch_table, program_rows
from .feature_table import COMPILED, LAUNCHES, golden_rows
from .golden_distance import is_golden_row


def with_goldens(rows: list) -> list:
    """rows and each row's golden on its case and dtype, as feature_matrix asks for them whether
    the rows it is given hold the dataset's golden row (its code) or not (the suite's golden.py)."""
    plain = [row for row in rows if not is_golden_row(row)]
    goldens = list(golden_rows(rows).values()) + list(golden_rows(plain).values())
    return rows + [golden for golden in goldens if golden]


def build(data: str, out: str, workers: int = 0, deadline_s: float = 0.0) -> dict:
    started = time.monotonic()
    deadline = started + deadline_s if deadline_s else None
    workers = workers or os.cpu_count() or 1
    os.makedirs(out, exist_ok=True)
    compiled_path = os.path.join(out, COMPILED)
    stamp = compile_stamp.require_current(child_batch.read_cache(compiled_path), compiled_path)
    rows = program_rows.read(data)
    everything = with_goldens(rows)
    launches = launch_table.table(everything, os.path.join(out, LAUNCHES), workers=workers, deadline=deadline)
    wanted = {launch_table.key(row) for row in everything}
    before = len(child_batch.read_cache(compiled_path))
    programs = compile_table.programs(everything, launches)
    built = compile_table.table(programs, compiled_path, workers=workers, deadline=deadline)
    todo, skipped = compile_table.jobs(programs)
    outcomes = collections.Counter(built[unit].get("why") or "compiled" for unit in todo if unit in built)
    launched = len(wanted & launches.keys())
    left = len(wanted) - launched + len(todo) - sum(outcomes.values())
    return dict(stamp, out=out, rows=len(rows), launch_keys=len(wanted), launch_keys_done=launched,
                kernels=len(todo), too_large=len(skipped), kernels_done=sum(outcomes.values()),
                compiled_now=len(child_batch.read_cache(compiled_path)) - before, outcomes=dict(outcomes.most_common(8)),
                left=left, complete=left == 0, seconds=round(time.monotonic() - started, 1), workers=workers)
