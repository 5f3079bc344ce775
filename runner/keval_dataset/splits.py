"""The makora split, as keval draws it (docs/dataset.md, "Splits").

makora's test split marks each row's problem with `holdout_group`: `full` (all of the problem's
programs are in test), `ninety` and `half` (90% and 50% of them are). Its card gives no more; this
is keval's reading, seeded and drawn by *cluster of tasks*, not by row:

- tasks whose programs are near copies of each other (near_duplicates.py) form one cluster, and
  a cluster goes to one group whole: no near copy of a `full` program is anywhere outside `full`.
- clusters are ordered by sha256(seed, task) of their first task; `full` takes clusters until it
  holds 10% of the tasks (rounded up; none with fewer than 4 tasks) and at least its minimum of
  problems (but never past 20% of the tasks), then `ninety` (5%), then `half` (5%); the rest are train only. A cluster larger than
  a group's share of tasks is left to train, one that would take a group past its share waits
  for a smaller one, and the groups together never take more than half of the tasks.
- a task's problems (its cases and dtypes) share its golden and its programs, so they go
  together: a held-out problem never has a sibling shape of the same program in train.
- in `ninety` and `half` tasks the programs (by content hash) are ordered by
  sha256(seed, task, program) and the first 90% / 50% (rounded, at least one and, with two or
  more programs, at least one fewer than all) go to test: each such task has rows on both sides.
"""

import hashlib
import math

HOLDOUT_GROUPS = ("full", "ninety", "half")
TEST_SHARE = {"full": 1.0, "ninety": 0.9, "half": 0.5}
TASK_SHARE = (("full", 0.10), ("ninety", 0.05), ("half", 0.05))
MIN_PROBLEMS = {"full": 30, "ninety": 10, "half": 10}
DEFAULT_SEED = 17


def _unit(*parts) -> float:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def task_groups(tasks, seed: int = DEFAULT_SEED, clusters=None, problems=None, minimum=None) -> dict:
    """task -> "full" | "ninety" | "half" | None (train only). `clusters`: lists of tasks that
    must share a group (default: each task alone); `problems`: task -> its number of problems
    (default 1 each); `minimum`: group -> problems it takes clusters until it holds."""
    tasks = sorted(set(tasks))
    problems = problems or {}
    minimum = MIN_PROBLEMS if minimum is None else minimum
    placed = {t for c in (clusters or []) for t in c}
    units = [sorted(set(c) & set(tasks)) for c in (clusters or [])] + [[t] for t in tasks if t not in placed]
    units = [u for u in units if u]
    units.sort(key=lambda u: min((_unit(seed, "task", t), t) for t in u))
    groups = {t: None for t in tasks}
    held, cap = 0, len(tasks) // 2
    remaining = list(units)
    for group, share in TASK_SHARE:
        quota = math.ceil(share * len(tasks)) if len(tasks) >= 4 else 0
        limit = math.ceil(2 * share * len(tasks))  # how far its minimum of problems may stretch it
        count = problem_count = 0
        for unit in list(remaining):
            if count >= quota and problem_count >= minimum.get(group, 0):
                break
            if quota == 0 or len(unit) > quota or held + len(unit) > cap or count + len(unit) > limit:
                continue
            if count < quota < count + len(unit):
                continue  # it would overshoot the share: a smaller cluster fills it
            for task in unit:
                groups[task] = group
            remaining.remove(unit)
            count += len(unit)
            held += len(unit)
            problem_count += sum(problems.get(t, 1) for t in unit)
    return groups


def programs_in_test(group, task: str, programs, seed: int = DEFAULT_SEED) -> set:
    """The programs of a task that go to test: all for `full`, a seeded 90% / 50% otherwise."""
    programs = sorted(set(programs))
    if group is None:
        return set()
    if group == "full":
        return set(programs)
    ordered = sorted(programs, key=lambda p: (_unit(seed, "program", task, p), p))
    count = round(TEST_SHARE[group] * len(ordered))
    count = max(1, count) if len(ordered) < 2 else min(max(1, count), len(ordered) - 1)
    return set(ordered[:count])
