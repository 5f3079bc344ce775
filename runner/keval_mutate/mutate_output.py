"""A `keval mutate` folder read back: per task, the golden's code and keval's verdict on it, and
each mutant's code, fate and verdict (mutants.json, mutants.jsonl, mutants.index.json).

The index names the golden's path, which may have changed or gone since the run (a worktree);
a suite folder may stand in. Either is checked against the run: a mutant's code and its stored
diff against the golden determine the golden, so the golden read must give the same diff."""
import os
from typing import NamedTuple

from .classify import EQUIVALENT, INVALID, KILLED, SURVIVED, UNJUDGED
from .errors import MutateError
from .generate import INDEX, JSONL
from .mutants import unified_diff
from .report import read_codes, read_json

# mutants.json's per-task lists, by the fate of the mutants in each
FATE_LISTS = {"killed_by": KILLED, "survivors": SURVIVED, "equivalents": EQUIVALENT,
              "invalid_mutants": INVALID, "unjudged_mutants": UNJUDGED}


class Mutant(NamedTuple):
    id: str
    task: str
    operator: str
    fate: str
    verdict: str
    reason: str
    code: str

    @property
    def counted(self) -> bool:
        """In the kill rate: judged, not equivalent, a program."""
        return self.fate in (KILLED, SURVIVED)


class TaskMutants(NamedTuple):
    task: str
    folder: str
    golden_code: str
    golden_verdict: str
    mutants: list


def golden_path(folder: str, task: str, golden: dict, suite: str) -> str:
    path = golden.get("golden", "")
    if os.path.isfile(path) or not suite:
        return path
    return os.path.join(suite, task, "golden.py")


def read_golden(folder: str, task: str, path: str, made: dict, codes: dict) -> str:
    """The golden's text, once one mutant's stored diff shows it is the one they were made from."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise MutateError(os.path.join(folder, INDEX), f"{task}'s golden {path}: {exc.strerror} (give --suite)") from None
    witness = next((i for i in sorted(made) if made[i].get("diff") and i in codes), None)
    if witness is not None and unified_diff(text, codes[witness], task) != made[witness]["diff"]:
        raise MutateError(path, f"not the golden the mutants of {folder} were made from ({witness}'s diff differs)")
    return text


def read_task(folder: str, task: str, entry: dict, golden: dict, made: dict, codes: dict, suite: str) -> TaskMutants:
    mine = {i: m for i, m in made.items() if m.get("task") == task}
    golden_code = read_golden(folder, task, golden_path(folder, task, golden, suite), mine, codes)
    mutants = []
    for key, fate in FATE_LISTS.items():
        for m in entry.get(key, []):
            code = codes.get(m["id"], "")
            if fate in (KILLED, SURVIVED) and not code:
                raise MutateError(os.path.join(folder, JSONL), f"no code for {m['id']}")
            mutants.append(Mutant(m["id"], task, m.get("operator", ""), fate, m.get("verdict", ""),
                                  m.get("reason", ""), code))
    mutants.sort(key=lambda m: m.id)
    return TaskMutants(task, folder, golden_code, entry.get("golden_verdict", "unjudged"), mutants)


def read_mutate_output(folder: str, wanted, suite: str = "") -> dict:
    """task -> TaskMutants of one folder, for the tasks wanted(task) keeps."""
    report = read_json(os.path.join(folder, "mutants.json"))
    index = read_json(os.path.join(folder, INDEX))
    codes = read_codes(os.path.join(folder, JSONL))
    made = {m["id"]: m for m in index.get("mutants", [])}
    return {task: read_task(folder, task, entry, index["tasks"].get(task, {}), made, codes, suite)
            for task, entry in report.get("tasks", {}).items() if wanted(task)}


def read_mutate_outputs(folders: list, wanted=lambda task: True, suite: str = "") -> dict:
    """task -> TaskMutants; a later folder's task replaces an earlier one's (a re-run)."""
    tasks = {}
    for folder in folders:
        tasks.update(read_mutate_output(folder, wanted, suite))
    return tasks
