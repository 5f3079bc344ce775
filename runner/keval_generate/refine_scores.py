"""Scores per refinement turn: pass@k and fast_1 of the answers given at turn t, and best so
far (a sample counts once any of its turns up to t passed, or passed faster than the baseline)."""
import math

SPEEDUP_BAR = 1.0  # fast_1: KernelBench's share of samples that pass and beat the baseline


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021) of c passes among n samples."""
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def ks_for(samples: int) -> list:
    """k = 1, 5, 10, 100 and the sample count, those not above it (as keval run reports them)."""
    return sorted({k for k in (1, 5, 10, 100, samples) if k <= samples})


def mean_pass_at_k(passes_by_task: dict, samples: int, k: int) -> float:
    return sum(pass_at_k(samples, c, k) for c in passes_by_task.values()) / len(passes_by_task)


def is_fast(outcome: dict) -> bool:
    return outcome["verdict"] == "pass" and (outcome["speedup"] or 0) > SPEEDUP_BAR


def turn_scores(outcomes: dict, tasks: list, samples: int, turns: int, timed: bool) -> list:
    """outcomes[(task, sample, turn)] = {"verdict", "speedup"}; one entry per turn. fast_1 is
    null when nothing was timed (--no-timing measures no speedup; 0 would claim one)."""
    scores = []
    for turn in range(1, turns + 1):
        now = {(t, i): outcomes[t, i, turn] for t in tasks for i in range(samples)}
        upto = {(t, i): [outcomes[t, i, s] for s in range(1, turn + 1)] for t in tasks for i in range(samples)}
        passes = {t: sum(now[t, i]["verdict"] == "pass" for i in range(samples)) for t in tasks}
        best = {t: sum(any(o["verdict"] == "pass" for o in upto[t, i]) for i in range(samples)) for t in tasks}
        n = len(tasks) * samples
        scores.append({
            "turn": turn,
            "passes": sum(passes.values()),
            "pass_at_k": {str(k): mean_pass_at_k(passes, samples, k) for k in ks_for(samples)},
            "fast_1": sum(is_fast(o) for o in now.values()) / n if timed else None,
            "best_so_far": {
                "passes": sum(best.values()),
                "pass_at_k": {str(k): mean_pass_at_k(best, samples, k) for k in ks_for(samples)},
                "fast_1": sum(any(is_fast(o) for o in history) for history in upto.values()) / n if timed else None,
            }})
    return scores


def score_table(scores: list) -> str:
    def cell(value):
        return "-" if value is None else f"{value:.3f}"
    lines = ["turn  passes  pass@1  fast_1  | best so far: passes  pass@1  fast_1"]
    for s in scores:
        b = s["best_so_far"]
        lines.append(f"{s['turn']:>4}  {s['passes']:>6}  {cell(s['pass_at_k']['1']):>6}  {cell(s['fast_1']):>6}  |"
                     f"              {b['passes']:>6}  {cell(b['pass_at_k']['1']):>6}  {cell(b['fast_1']):>6}")
    return "\n".join(lines)
