"""Per-turn curves of a refinement run (`keval generate --turns N`), counted from the per-turn
records: JUDGE_OUT/turn-<t>/results.jsonl, whose ids are TASK@MODEL#I/tT. For each turn: pass@k
and fast_p of the answers given at that turn, the geometric-mean speedup of its passes, and the
same pass@k and fast_p best so far (a sample counts once any of its turns up to t did)."""

import json
import os
import re

from .errors import ReportError
from .scores import geomean, pass_at_k

TURN_ID = re.compile(r"#(\d+)/t(\d+)$")
FAST_PS = ("0", "1", "2")  # fast_p's speedup bars, as keval run reports them


def is_refine_folder(summary: dict) -> bool:
    return isinstance(summary.get("per_turn"), list) and "turns" in summary


def _turn_results(folder: str, turn: int) -> list:
    path = os.path.join(folder, f"turn-{turn}", "results.jsonl")
    try:
        with open(path) as f:
            lines = [(number, line) for number, line in enumerate(f, 1) if line.strip()]
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file (turn {turn} of the refinement was not judged)") from None
    results = []
    for number, line in lines:
        try:
            results.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ReportError(f"{path}:{number}: not JSON ({exc.msg})") from None
    return results


def _outcomes(folder: str, turns: int) -> dict:
    """{(task, sample, turn): result}."""
    outcomes = {}
    for turn in range(1, turns + 1):
        for r in _turn_results(folder, turn):
            match = TURN_ID.search(str(r.get("id", "")))
            if not match or int(match.group(2)) != turn or "task" not in r:
                raise ReportError(f"{os.path.join(folder, f'turn-{turn}', 'results.jsonl')}: id {r.get('id')!r} "
                                  f"is not TASK@MODEL#I/t{turn}")
            outcomes[r["task"], int(match.group(1)), turn] = r
    return outcomes


def _passed(r) -> bool:
    return r is not None and r.get("verdict") == "pass"


def _fast(r, bar: float) -> bool:
    return _passed(r) and (r.get("speedup") or 0) > bar


def _figures(histories: dict, tasks: list, samples: int, timed: bool, last_only: bool) -> dict:
    """pass@k and fast_p over samples; a history is a sample's results up to turn t."""
    def counted(test):
        return lambda history: test(history[-1]) if last_only else any(test(r) for r in history)
    passed = counted(_passed)
    by_task = {t: sum(passed(histories[t, i]) for i in range(samples)) for t in tasks}
    ks = sorted({k for k in (1, 5, 10, 100, samples) if k <= samples})
    n = len(tasks) * samples
    fast = {p: (sum(counted(lambda r, bar=float(p): _fast(r, bar))(h) for h in histories.values()) / n
                if timed else None) for p in FAST_PS}
    return {"passes": sum(by_task.values()),
            "pass_at_k": {str(k): sum(pass_at_k(samples, c, k) for c in by_task.values()) / len(tasks) for k in ks},
            "fast_p": fast}


def turn_curves(folder: str, summary: dict) -> list:
    """One entry per turn: {turn, passes, pass_at_k, fast_p, geomean_speedup, best_so_far}."""
    tasks, samples, turns = summary.get("tasks") or [], summary.get("samples"), summary.get("turns")
    if not tasks or not isinstance(samples, int) or not isinstance(turns, int):
        raise ReportError(f"{os.path.join(folder, 'summary.json')}: a refinement summary needs tasks, samples, turns")
    timed = bool(summary.get("timed", True))
    outcomes = _outcomes(folder, turns)
    curves = []
    for turn in range(1, turns + 1):
        histories = {(t, i): [outcomes.get((t, i, s)) for s in range(1, turn + 1)]
                     for t in tasks for i in range(samples)}
        now = _figures(histories, tasks, samples, timed, last_only=True)
        speedups = [h[-1]["speedup"] for h in histories.values() if _passed(h[-1]) and h[-1].get("speedup")]
        curves.append({"turn": turn, **now, "geomean_speedup": geomean(speedups) if timed else None,
                       "best_so_far": _figures(histories, tasks, samples, timed, last_only=False)})
    return curves
