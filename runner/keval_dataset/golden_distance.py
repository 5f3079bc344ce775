"""How far a program's tuning constants are from its task's golden: the rule "the expert's choice
is fastest, and the further a variant moves from it the slower it gets", and features for the
predictor. The golden's code is the program itself, never its time: it is part of the task.

The golden of a task is the row whose `submission_id` is `<task>@golden#as_is` (the sweep's
unchanged golden), else suites/<suite>/<task>/golden.py.
"""

import os

from .tuning_knobs import KNOB_RE, STAGES_RE, WARPS_RE
from .makora_form import candidate_code
from .task_sources import REPO

IN_ORDER = 8  # per-position differences kept as features


def tuning_values(code: str) -> list:
    """The program's tuning constants in source order, as log2 (stages as is)."""
    found = []
    for regex, kind in ((KNOB_RE, "knob"), (WARPS_RE, "warps"), (STAGES_RE, "stages")):
        for match in regex.finditer(code):
            value = int(match.groups()[-1])
            if value > 0:
                found.append((match.start(), kind, value.bit_length() - 1 if kind != "stages" else value))
    return [(kind, value) for _, kind, value in sorted(found)]


def is_golden_row(row: dict) -> bool:
    return str(row.get("submission_id") or "").endswith("@golden#as_is")


def golden_codes(rows: list) -> dict:
    """task -> the golden's code, from the rows or the suite's folder."""
    codes = {}
    for row in rows:
        if is_golden_row(row):
            codes.setdefault(row.get("task"), candidate_code(row.get("x") or ""))
    for row in rows:
        task = row.get("task")
        if task and task not in codes:
            path = os.path.join(REPO, "suites", row.get("suite") or "keval", task, "golden.py")
            codes[task] = open(path, encoding="utf-8").read() if os.path.exists(path) else None
    return codes


def distance_features(code: str, golden) -> dict:
    """Summed |difference| of the aligned tuning constants, how many differ, and the first
    IN_ORDER signed differences (0 where the golden is unknown or the lists do not align)."""
    out = {"golden_known": 0.0, "golden_distance": 0.0, "golden_changed": 0.0}
    out.update({f"golden_diff_{i}": 0.0 for i in range(IN_ORDER)})
    if not golden:
        return out
    mine, theirs = tuning_values(code), tuning_values(golden)
    if len(mine) != len(theirs) or [k for k, _ in mine] != [k for k, _ in theirs]:
        mine, theirs = mine[:min(len(mine), len(theirs))], theirs[:min(len(mine), len(theirs))]
    diffs = [a - b for (_, a), (_, b) in zip(mine, theirs)]
    out["golden_known"] = 1.0
    out["golden_distance"] = float(sum(abs(d) for d in diffs))
    out["golden_changed"] = float(sum(d != 0 for d in diffs))
    for i, d in enumerate(diffs[:IN_ORDER]):
        out[f"golden_diff_{i}"] = float(d)
    return out


def rule_scores(rows: list) -> list:
    """The golden-distance rule's predicted order: the distance itself (smaller: faster)."""
    goldens = golden_codes(rows)
    return [distance_features(candidate_code(r.get("x") or ""), goldens.get(r.get("task")))["golden_distance"]
            for r in rows]

