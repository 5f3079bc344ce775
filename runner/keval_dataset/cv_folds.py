"""Grouped cross-validation folds over the train split, for choosing the predictor's settings
without the test split.

A fold holds whole clusters of tasks: a task with its near copies (quality.json's
`near_duplicates.clusters`, as the holdout groups are built), so no near copy of a held-out
task trains the model that is judged on it. A cluster's fold is sha256 of its first task, mod k.
"""

import hashlib
import json
import os


def clusters_of(data: str) -> list:
    """The export's clusters of near-copy tasks (none when it has no quality.json)."""
    path = os.path.join(data, "quality.json") if os.path.isdir(data) else ""
    if not path or not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return (json.load(f).get("near_duplicates") or {}).get("clusters") or []


def fold_of(tasks: list, folds: int, clusters=()) -> list:
    """Per task (a row's), its fold in 0..folds-1: the same for every task of one cluster."""
    representative = {}
    for cluster in clusters:
        for task in cluster:
            representative[task] = sorted(cluster)[0]
    out = []
    for task in tasks:
        head = representative.get(task, task)
        out.append(int(hashlib.sha256(str(head).encode()).hexdigest(), 16) % folds)
    return out
