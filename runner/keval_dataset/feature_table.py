"""The predictor's feature matrix: the text features (features.py, golden_distance.py), the dry
launches' (launch_features.py), the compiled kernels' (compiled_features.py), the H200 model's
(hardware_model.py) with its estimate's rank in the problem, and each row's features less its
problem's median.

The last (and the rank) are what a within-problem ranking needs: the programs of one problem
share its size, dtype and task, so what orders them is how each differs from the others. They
use only the features of the problem's rows (the programs one is asked to rank), never their
labels. The relative regressor and ridge read the centred columns; lambdarank orders better
without them (predictor.order_columns).
"""

import math
import os
import statistics

from . import compile_table
from .compiled_features import compiled_features, names as compiled_names
from .features import matrix
from .golden_distance import golden_codes
from .hardware_model import hardware_features, names as hardware_names
from .launch_features import launch_features, names as launch_names
from .launch_table import key, table

LAUNCHES, COMPILED = "launches.jsonl", "compiled.jsonl"  # in cache_dir(), or a folder compile_cache.py built
CENTRED_PREFIXES = ("launch_", "compiled_", "hw_", "vs_golden_", "golden_", "knob_", "warps_", "stages_", "block_",
                    "num_",
                    "elems_per_thread_log2", "programs_log2", "waves_log2", "threads_log2", "tail_fraction",
                    "bytes_per_program_log2", "bytes_per_thread_log2")


def golden_rows(rows: list) -> dict:
    """row index -> a row holding the task's golden on the row's case and dtype (None if unknown)."""
    codes = golden_codes(rows)
    out = {}
    for i, row in enumerate(rows):
        code = codes.get(row.get("task"))
        out[i] = None if not code else {"x": code, "suite": row.get("suite"), "task": row.get("task"),
                                        "case": row.get("case"), "dtype": row.get("dtype")}
    return out


def _median(values: list) -> float:
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else float("nan")


def centred(X, names: list, problems: list):
    """Columns CENTRED_PREFIXES, each less its problem's median, named `in_problem_<name>`."""
    import numpy as np

    chosen = [j for j, name in enumerate(names) if name.startswith(CENTRED_PREFIXES)]
    members = {}
    for i, problem in enumerate(problems):
        members.setdefault(problem, []).append(i)
    out = np.full((len(problems), len(chosen)), np.nan)
    for rows in members.values():
        for c, j in enumerate(chosen):
            median = _median([X[i, j] for i in rows])
            for i in rows:
                out[i, c] = X[i, j] - median
    return out, [f"in_problem_{names[j]}" for j in chosen]


def ranked(X, names: list, problems: list, column: str = "hw_time_log2"):
    """`column`'s place within each problem, 0 (smallest) to 1 (largest), ties averaged; NaN where
    the column is."""
    import numpy as np

    j = names.index(column)
    out = np.full((len(problems), 1), np.nan)
    members = {}
    for i, problem in enumerate(problems):
        if not math.isnan(X[i, j]):
            members.setdefault(problem, []).append(i)
    for rows in members.values():
        for i in rows:
            below = sum(X[k, j] < X[i, j] for k in rows) + 0.5 * (sum(X[k, j] == X[i, j] for k in rows) - 1)
            out[i, 0] = below / (len(rows) - 1) if len(rows) > 1 else 0.5
    return out, [f"rank_{column}"]


def work_of(features: dict) -> dict:
    """The problem's FLOPs and bytes (None when its task names none), from features.py's logs."""
    known = features.get("has_work_model") == 1.0
    return {"flops": 2 ** features["flops_log2"] if known and features["flops_log2"] > 0 else None,
            "bytes": 2 ** features["bytes_log2"] if known and features["bytes_log2"] > 0 else None,
            "dots": features.get("dots", 0.0), "elem_bytes": features.get("elem_bytes", 4.0),
            "loads": features.get("loads", 1.0),
            "loops": features.get("for_loops", 0.0) + features.get("while_loops", 0.0)}


def cache_dir() -> str:
    """Where the launches and compilations are kept: $KEVAL_FEATURE_CACHE, else ~/.cache/keval/features."""
    return os.environ.get("KEVAL_FEATURE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "keval", "features")


def feature_matrix(rows: list, problems: list, cache=None, launches: bool = True, compiled: bool = False,
                   within: bool = True):
    """(X, names) for `rows`; `problems` groups them for the centred columns. `cache`: a folder
    (cache_dir() when None) for the launches and compilations. The compiled features are off by
    default: about 0.6 CPU-seconds a distinct kernel (2,203 in keval-latency-h200-v1), which a
    shared machine did not have to spare (bench/runs/2026-12-05-predictor-2.md); compile_cache.py
    builds the folder elsewhere."""
    import numpy as np

    X, names = matrix(rows)
    if launches:
        folder = cache or cache_dir()
        os.makedirs(folder, exist_ok=True)
        goldens = golden_rows(rows)
        everything = rows + [g for g in goldens.values() if g]
        found = table(everything, os.path.join(folder, LAUNCHES))
        built = {}
        if compiled:
            built = compile_table.table(compile_table.programs(everything, found), os.path.join(folder, COMPILED))
        extra = []
        for i, row in enumerate(rows):
            mine = found[key(row)]["launches"]
            golden = (found[key(goldens[i])]["launches"] if goldens[i] else None) or None
            features = launch_features(mine, golden)
            if compiled:
                features.update(compiled_features(mine, golden, built))
            text = {name: X[i, j] for j, name in enumerate(names)}
            features.update(hardware_features(mine, golden, built, work_of(text)))
            extra.append(features)
        extra_names = launch_names() + (compiled_names() if compiled else []) + hardware_names()
        X = np.hstack([X, np.array([[f[n] for n in extra_names] for f in extra], dtype=float).reshape(len(rows), -1)])
        names = names + extra_names
    if launches:
        R, ranked_names = ranked(X, names, problems)
        X, names = np.hstack([X, R]), names + ranked_names
    if within:
        C, centred_names = centred(X, names, problems)
        X, names = np.hstack([X, C]), names + centred_names
    return X, names
