"""How well predicted latencies rank the programs of each problem (docs/dataset.md, "Baseline")."""

import math
from collections import defaultdict


def by_problem(problems, *columns) -> dict:
    groups = defaultdict(list)
    for problem, *values in zip(problems, *columns):
        groups[problem].append(values)
    return groups


def within_problem_rank_correlations(problems, truth, predicted, minimum: int = 3) -> dict:
    """Mean Spearman and Kendall over problems with at least `minimum` timed programs whose
    truth is not constant."""
    from scipy.stats import kendalltau, spearmanr

    spearmans, kendalls = [], []
    for values in by_problem(problems, truth, predicted).values():
        if len(values) < minimum or len({t for t, _ in values}) < 2:
            continue
        t, p = zip(*values)
        s, k = spearmanr(t, p).statistic, kendalltau(t, p).statistic
        if not math.isnan(s):
            spearmans.append(s)
        if not math.isnan(k):
            kendalls.append(k)
    mean = lambda v: sum(v) / len(v) if v else None  # noqa: E731
    return {"spearman": mean(spearmans), "kendall": mean(kendalls), "problems": len(spearmans)}


def best_within(problems, truth, predicted, tolerance: float = 0.05, minimum: int = 2) -> dict:
    """Share of problems whose predicted-fastest program is within `tolerance` of the fastest."""
    hits = total = 0
    for values in by_problem(problems, truth, predicted).values():
        if len(values) < minimum:
            continue
        best = min(t for t, _ in values)
        chosen = min(values, key=lambda v: v[1])[0]
        hits += chosen <= best * (1 + tolerance)
        total += 1
    return {"share": hits / total if total else None, "problems": total}


def mape(truth, predicted):
    pairs = [(t, p) for t, p in zip(truth, predicted) if t and t > 0]
    return sum(abs(p - t) / t for t, p in pairs) / len(pairs) if pairs else None


def auroc(labels, scores):
    labels = list(labels)
    if len(set(labels)) < 2:
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, list(scores)))
