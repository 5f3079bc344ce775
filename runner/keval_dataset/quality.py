"""Quality checks run at export (docs/dataset.md, "Quality"): rows dropped with a reason (exact
duplicates, false `tampering`), near copies between tasks (near_duplicates.py) as the clusters
the split keeps whole, and the facts for `quality.json`."""

import collections
import json

from . import near_duplicates

# The v1 sweep's known fault (data/keval-latency-h200-v1/README.md, "Known faults"): a timing
# process that waited for a core read its host time far above its CUDA event time, and the
# hidden-work check called keval's own golden variants `tampering`.
HOST_SYNC_REASON = "host time to a device-wide sync"
FALSE_TAMPERING = ("false_tampering: the only reasons are the host-time-to-sync check on keval's own "
                   "golden variant (a timing process that waited for a core), not the program")


def reasons_of(record: dict) -> list:
    reasons = record.get("reasons")
    if isinstance(reasons, str):
        try:
            reasons = json.loads(reasons)
        except json.JSONDecodeError:
            reasons = [reasons]
    return reasons if isinstance(reasons, list) else []


def false_tampering(record: dict) -> bool:
    """A `tampering` verdict whose every reason is the host-sync check, on keval's own variant of
    its golden (its submission id names `@golden`): the program is keval's, the fault the clock's."""
    if record.get("verdict") != "tampering" or "@golden" not in str(record.get("submission_id") or ""):
        return False
    reasons = reasons_of(record)
    return bool(reasons) and all(HOST_SYNC_REASON in str(r) for r in reasons)


def drop_rows(records: list, code_of) -> tuple:
    """(kept, dropped): dropped records carry `drop_reason`. An exact duplicate is a program of a
    problem already kept whose code differs at most in comments and layout."""
    kept, dropped, seen = [], [], set()
    exact = {}
    for record in records:
        if false_tampering(record):
            dropped.append(dict(record, drop_reason=FALSE_TAMPERING))
            continue
        code = code_of(record)
        if code not in exact:
            exact[code] = near_duplicates.exact_key(code)
        key = (record.get("suite"), record.get("task"), record.get("case"), record.get("dtype"), exact[code])
        if key in seen:
            dropped.append(dict(record, drop_reason="exact_duplicate: the same program (up to comments and "
                                                    "layout) of the same problem is kept once"))
            continue
        seen.add(key)
        kept.append(record)
    return kept, dropped


def task_clusters(records: list, code_of, threshold: float) -> tuple:
    """(clusters, pairs): tasks joined by near copies (connected components), and the near pairs
    between tasks as (task_a, task_b, similarity), the highest per task pair."""
    texts, owner = {}, {}
    for record in records:
        code = code_of(record)
        key = f"{record['task']}\x1f{near_duplicates.shape_key(code)}"
        texts.setdefault(key, code)
        owner[key] = record["task"]
    best = {}
    for a, b, similarity in near_duplicates.near_pairs(texts, threshold):
        ta, tb = sorted((owner[a], owner[b]))
        if ta != tb:
            best[(ta, tb)] = max(similarity, best.get((ta, tb), 0.0))
    parent = {t: t for t in owner.values()}

    def root(t):
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    for ta, tb in best:
        parent[root(ta)] = root(tb)
    components = collections.defaultdict(list)
    for task in sorted(parent):
        components[root(task)].append(task)
    clusters = sorted((c for c in components.values() if len(c) > 1), key=lambda c: c[0])
    return clusters, sorted((a, b, s) for (a, b), s in best.items())


def crossing_pairs(pairs: list, groups: dict) -> list:
    """Near pairs with one task in `full` and the other outside it (the split forbids them)."""
    return [(a, b, s) for a, b, s in pairs if (groups.get(a) == "full") != (groups.get(b) == "full")]
