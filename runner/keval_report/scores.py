"""The figures of a run's summary that summary.json does not hold: the geometric-mean speedup's
bootstrap interval and pass@k over tasks with several samples (docs/judging.md, "Scores")."""

import math
import random


def geomean(values: list):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def geomean_ci(values: list, resamples: int = 2000, seed: int = 17):
    """95% percentile bootstrap interval of the geometric mean (seeded: the same run, the same
    page); None with fewer than two values."""
    logs = [math.log(v) for v in values if v and v > 0]
    if len(logs) < 2:
        return None
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(logs) for _ in logs) / len(logs) for _ in range(resamples))
    return math.exp(means[int(0.025 * resamples)]), math.exp(means[int(0.975 * resamples) - 1])


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k samples drawn from n (c of them correct) passes."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_at_ks(results: list) -> dict:
    """{"pass@1": x, "pass@5": y, ...} averaged over tasks with at least k submissions; {} when
    no task has more than one (a run of single attempts has no samples to draw from)."""
    per_task = {}
    for r in results:
        n, c = per_task.get(r["task"], (0, 0))
        per_task[r["task"]] = (n + 1, c + (r["verdict"] == "pass"))
    most = max((n for n, _ in per_task.values()), default=0)
    if most < 2:
        return {}
    scores = {}
    for k in (1, 5, 10, 100):
        tasks = [(n, c) for n, c in per_task.values() if n >= k]
        if k > 1 and k > most:
            break
        scores[f"pass@{k}"] = sum(pass_at_k(n, c, k) for n, c in tasks) / len(tasks)
    return scores


def run_scores(run) -> dict:
    s = run.summary
    speedups = [r["speedup"] for r in run.results if r.get("verdict") == "pass" and r.get("speedup")]
    ci = geomean_ci(speedups)
    fast = s.get("fast_p") or {}
    return {
        "n": len(run.results),
        "call_accuracy": s.get("call_accuracy"),
        "exec_accuracy": s.get("exec_accuracy"),
        "geomean_speedup": s.get("geomean_speedup") if s.get("geomean_speedup") is not None else geomean(speedups),
        "geomean_ci": ci,
        "fast_1": fast.get("1"),
        "fast_p": fast,
        "pass_at_k": pass_at_ks(run.results),
        "verdict_counts": s.get("verdict_counts") or {},
        "baseline": s.get("speedup_baseline"),
        "timing_method": s.get("timing_method"),
        "device": (s.get("environment") or {}).get("device_mode"),
        "gpu": (s.get("environment") or {}).get("gpu"),
        "harness_errors": s.get("harness_errors") or [],
    }
