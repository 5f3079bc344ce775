"""Each label's interval, wide enough for the run-to-run spread (docs/dataset.md, "Quality").

A run's 95% bootstrap interval of the median covers the spread of that run's samples, not of a
second run (v1: 52% of retimed medians fell outside it: clocks, placement, the GPU's state).
With a second timing of the same programs (`--retime`, an export of that run) the spread is
measured: k is the 95th percentile of |y2 - y1| / y1 over the programs timed twice, and every
label's interval is its run's interval widened to y / (1 + k) .. y * (1 + k); a label that was
itself timed twice also covers the other run's median. Without a retime the interval is the
run's own, and `y_interval` says so.
"""

import hashlib

from .tables import read_rows, split_path

WITHIN_RUN = "ci95_within_run"
WIDENED = "ci95_widened_run_to_run"
RETIMED = "retimed"
COVERAGE = 0.95


def retimed_medians(folder: str) -> dict:
    """(problem, program hash) -> y of an export folder (both splits)."""
    out = {}
    for split in ("train", "test"):
        for row in read_rows(split_path(folder, split)):
            if row.get("y") is not None:
                out[(row.get("keval_problem"), row.get("program_hash"))] = row["y"]
    return out


def spread_factor(pairs: list, coverage: float = COVERAGE):
    """The `coverage` quantile of |y2 - y1| / y1 over (y1, y2) pairs; None without pairs."""
    relative = sorted(abs(b - a) / a for a, b in pairs if a and a > 0 and b is not None)
    if not relative:
        return None
    return relative[min(len(relative) - 1, int(coverage * len(relative)))]


def interval(y, low, high, k, other=None) -> tuple:
    """(low, high, method) of one label: its run's interval, widened by k, covering `other`."""
    if y is None:
        return None, None, None
    low = y if low is None else min(low, y)
    high = y if high is None else max(high, y)
    if k is None:
        return low, high, WITHIN_RUN
    low, high = min(low, y / (1 + k)), max(high, y * (1 + k))
    if other is None:
        return low, high, WIDENED
    return min(low, other), max(high, other), RETIMED


def _half(problem) -> bool:
    return hashlib.sha256(str(problem).encode()).digest()[0] < 128


def coverage_report(rows: list, second: dict) -> dict:
    """How often the second run's median falls inside the first run's interval: as measured
    (the bootstrap CI) and widened by a k fitted on the other half of the problems (cross-fitted,
    so the figure is not true by construction)."""
    pairs = [(r, second[(r["keval_problem"], r["program_hash"])]) for r in rows
             if r.get("y") is not None and (r.get("keval_problem"), r.get("program_hash")) in second]
    if not pairs:
        return {"programs_timed_twice": 0}
    inside_ci = sum((r.get("ci95_low_ms") or r["y"]) <= y2 <= (r.get("ci95_high_ms") or r["y"]) for r, y2 in pairs)
    inside_widened = 0
    for half in (True, False):
        fit = [(r["y"], y2) for r, y2 in pairs if _half(r["keval_problem"]) != half]
        k = spread_factor(fit)
        for r, y2 in pairs:
            if _half(r["keval_problem"]) == half:
                low, high, _ = interval(r["y"], r.get("ci95_low_ms"), r.get("ci95_high_ms"), k)
                inside_widened += low <= y2 <= high
    return {"programs_timed_twice": len(pairs),
            "spread_factor_k": spread_factor([(r["y"], y2) for r, y2 in pairs]),
            "second_median_inside_ci95": inside_ci / len(pairs),
            "second_median_inside_widened_cross_fitted": inside_widened / len(pairs)}
