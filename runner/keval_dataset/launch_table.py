"""The dry launches (dry_launch.py) of many rows, computed in child processes (child_batch.py)
and cached in a JSON-lines file keyed by the program's text, task, case and dtype: a dataset's
launches are found once per machine, whatever split or fold reads them."""

import hashlib
import os
import sys

from . import child_batch
from .makora_form import candidate_code
from .task_sources import REPO

ROW_SECONDS = 20


def key(row: dict) -> str:
    code = candidate_code(row.get("x") or "")
    text = "\0".join([code, str(row.get("suite")), str(row.get("task")), str(row.get("case")), str(row.get("dtype"))])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def table(rows: list, cache: str = None, seconds: float = ROW_SECONDS, workers: int = 1, deadline=None) -> dict:
    """key(row) -> {"launches": [Launch.as_dict()...], "why": None or why there are none}; with a
    `deadline` (child_batch.run), rows not reached by then are left out."""
    jobs = {}
    for row in rows:
        jobs.setdefault(key(row), {"key": key(row), "code": candidate_code(row.get("x") or ""),
                                   "suite": row.get("suite") or "keval", "task": row.get("task"),
                                   "case": row.get("case"), "dtype": row.get("dtype") or "float32"})
    found = child_batch.run(list(jobs.values()), "keval_dataset.launch_table", seconds, cache, workers=workers,
                            deadline=deadline)
    for answer in found.values():
        answer.setdefault("launches", [])
    return found


_tasks = {}


def answer(job: dict) -> dict:
    from .dry_launch import TaskInputs, launches

    where = (job["suite"], job["task"])
    if where not in _tasks:
        folder = os.path.join(REPO, "suites", job["suite"], job["task"] or "")
        _tasks[where] = TaskInputs(folder) if os.path.exists(os.path.join(folder, "task.toml")) else None
    if _tasks[where] is None:
        return {"launches": [], "why": "task_not_found"}
    found, why = launches(job["code"], _tasks[where], job["case"], job["dtype"])
    return {"launches": [x.as_dict() for x in found], "why": why}


if __name__ == "__main__":
    child_batch.serve(sys.argv[1], sys.argv[2], answer)
