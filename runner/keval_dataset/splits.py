"""The makora split, as keval draws it (docs/dataset.md, "Splits").

makora's test split marks each row's problem with `holdout_group`: `full` (all of the problem's
programs are in test), `ninety` and `half` (90% and 50% of them are). Its card gives no more; this
is keval's reading, seeded and drawn by *task*, not by row:

- tasks are ordered by sha256(seed, task); the first 10% (at least one when there are 4 or more
  tasks) are `full`, the next 5% `ninety`, the next 5% `half`, the rest train only. A task's
  problems (its cases and dtypes) share its golden and its programs, so they go together: a
  held-out problem never has a sibling shape of the same program in train.
- in `ninety` and `half` tasks each program (by content hash) goes to test with that share,
  drawn from sha256(seed, task, program), so one program's records stay on one side.
"""

import hashlib
import math

HOLDOUT_GROUPS = ("full", "ninety", "half")
TEST_SHARE = {"full": 1.0, "ninety": 0.9, "half": 0.5}
TASK_SHARE = (("full", 0.10), ("ninety", 0.05), ("half", 0.05))
DEFAULT_SEED = 17


def _unit(*parts) -> float:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def task_groups(tasks, seed: int = DEFAULT_SEED) -> dict:
    """task -> "full" | "ninety" | "half" | None (train only)."""
    ordered = sorted(set(tasks), key=lambda t: (_unit(seed, "task", t), t))
    groups, start = {}, 0
    for group, share in TASK_SHARE:
        count = math.ceil(share * len(ordered)) if len(ordered) >= 4 else 0
        for task in ordered[start:start + count]:
            groups[task] = group
        start += count
    for task in ordered[start:]:
        groups[task] = None
    return groups


def in_test(group, task: str, program: str, seed: int = DEFAULT_SEED) -> bool:
    if group is None:
        return False
    return _unit(seed, "program", task, program) < TEST_SHARE[group]
