"""A run's figures for the report, read from summary.json (the controller computes every
statistic once: src/report/summary.cc); the per-turn curves of a refinement still count theirs."""

import math


def geomean(values: list):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k samples drawn from n (c of them correct) passes (a
    refinement's per-turn curves only: a run's pass@k is summary.json's)."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def summary_pass_at_ks(summary: dict) -> dict:
    """{"pass@1": x, ...}: summary.json's pass_at_k (the controller's one definition: k up to the
    smallest task's sample count, averaged over every task)."""
    figures = summary.get("pass_at_k") or {}
    return {f"pass@{k}": v for k, v in sorted(figures.items(), key=lambda kv: int(kv[0]))}


def summary_interval(summary: dict):
    """summary.json's geomean_speedup_ci as (low, high), or None (not timed, or an older run)."""
    ci = summary.get("geomean_speedup_ci")
    return tuple(ci) if isinstance(ci, list) and len(ci) == 2 else None


def run_scores(run) -> dict:
    """The run's figures as summary.json holds them: nothing here is counted again."""
    s = run.summary
    fast = s.get("fast_p") or {}
    return {
        "n": len(run.results),
        "call_accuracy": s.get("call_accuracy"),
        "exec_accuracy": s.get("exec_accuracy"),
        "geomean_speedup": s.get("geomean_speedup"),
        "geomean_ci": summary_interval(s),
        "fast_1": fast.get("1"),
        "fast_p": fast,
        "pass_at_k": summary_pass_at_ks(s),
        "verdict_counts": s.get("verdict_counts") or {},
        "baseline": s.get("speedup_baseline"),
        "timing_method": s.get("timing_method"),
        "device": (s.get("environment") or {}).get("device_mode"),
        "gpu": (s.get("environment") or {}).get("gpu"),
        "harness_errors": s.get("harness_errors") or [],
    }
