"""The test-retest noise ceiling: the within-problem Spearman between two timings of the same
programs (two exports of two runs). No predictor can be judged above it."""

import os
import statistics

from . import ranking_metrics
from .tables import read_rows, split_path


def _timed(folder: str) -> dict:
    rows = []
    for split in ("train", "test"):
        rows += read_rows(split_path(folder, split)) if os.path.isdir(folder) else []
    return {(r["keval_problem"], r["program_hash"]): r["y"] for r in rows if r.get("y") is not None}


def noise_ceiling(first: str, second: str) -> dict:
    a, b = _timed(first), _timed(second)
    both = sorted(set(a) & set(b))
    problems = [k[0] for k in both]
    ta, tb = [a[k] for k in both], [b[k] for k in both]
    result = {"programs_timed_twice": len(both), "problems": len(set(problems))}
    result.update(ranking_metrics.within_problem_rank_correlations(problems, ta, tb))
    relative = [abs(x - y) / min(x, y) for x, y in zip(ta, tb) if min(x, y) > 0]
    result["median_relative_difference"] = statistics.median(relative) if relative else None
    return result
