"""Reads what `keval run` left in an OUT folder: summary.json, results.jsonl, and from keval.db
the submissions' code, the reference job's comparison facts and the timed cases' shapes. A
refinement's judge folder (`keval generate --turns`) reads as its last turn's run, with the
per-turn curves beside it."""

import json
import os
import sqlite3
import urllib.parse
from dataclasses import dataclass, field

from .errors import ReportError
from .refine_turns import is_refine_folder, turn_curves


@dataclass
class Run:
    label: str
    folder: str
    summary: dict
    results: list
    code: dict = field(default_factory=dict)       # submission hash -> code
    compares: dict = field(default_factory=dict)   # submission hash -> the reference's compare messages
    case_sizes: dict = field(default_factory=dict)  # (task, case) -> elements of the case's shape
    turns: list | None = None  # a refinement run's per-turn curves (refine_turns)


def _read_json(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file (is {os.path.dirname(path)} the --out of a keval run?)") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: line {exc.lineno}: not JSON ({exc.msg})") from None


def _read_results(path: str) -> list:
    results = []
    try:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    result = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ReportError(f"{path}:{number}: not JSON ({exc.msg})") from None
                if not isinstance(result, dict) or "verdict" not in result or "task" not in result:
                    raise ReportError(f"{path}:{number}: not a result (no \"verdict\" or \"task\")")
                results.append(result)
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file (is {os.path.dirname(path)} the --out of a keval run?)") from None
    return results


def _elements(params: dict) -> int:
    size = 1
    for value in params.values():
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            size *= value
    return size


def read_only_uri(path: str) -> str:
    """A URI that reads the store without writing anything. In a folder this user cannot write
    (a read-only mount, another user's run) SQLite cannot make the WAL's -shm file, so the store
    is read as it stands (its last checkpoint; every finished run has one)."""
    folder = os.path.dirname(os.path.abspath(path))
    query = "mode=ro" if os.access(folder, os.W_OK) else "mode=ro&immutable=1"
    return f"file:{urllib.parse.quote(os.path.abspath(path))}?{query}"


def _read_store(path: str, run: Run) -> None:
    """Code, comparisons and case shapes; a run without its keval.db still reports its results."""
    if not os.path.exists(path):
        return
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True)
        for digest, code in db.execute("SELECT hash, code FROM submissions"):
            run.code[digest] = code
        for digest, facts in db.execute("SELECT submission_hash, facts_json FROM evaluations ORDER BY id"):
            try:
                reference = (json.loads(facts or "null") or {}).get("reference") or {}
            except json.JSONDecodeError:
                continue
            run.compares[digest] = [m for m in reference.get("messages", []) if m.get("type") == "compare"]
        rows = db.execute("SELECT e.task, t.case_name, t.params_json FROM timed_cases t "
                          "JOIN evaluations e ON e.id = t.evaluation_id")
        for task, case, params in rows:
            try:
                run.case_sizes[(task, case)] = _elements(json.loads(params or "{}"))
            except (json.JSONDecodeError, AttributeError):
                pass
        db.close()
    except sqlite3.Error as exc:
        raise ReportError(f"{path}: cannot read the store: {exc}") from None


def _labels(folders: list) -> list:
    """Each folder's name, or where two names are the same its path below the folders' common
    parent: never a path of this machine, as the page may be shared."""
    paths = [os.path.abspath(f) for f in folders]
    names = [os.path.basename(p) or p for p in paths]
    parent = os.path.commonpath(paths) if len(paths) > 1 else ""
    return [os.path.relpath(p, parent) if names.count(n) > 1 else n for p, n in zip(paths, names)]


def read_runs(folders: list) -> list:
    runs = []
    for folder, label in zip(folders, _labels(folders)):
        if not os.path.isdir(folder):
            raise ReportError(f"{folder}: no such folder (give the --out folders of keval runs)")
        summary = _read_json(os.path.join(folder, "summary.json"))
        turns = None
        if is_refine_folder(summary):  # keval generate --turns: the last turn's run, and the curves
            turns = turn_curves(folder, summary)
            run_folder = os.path.join(folder, f"turn-{summary['turns']}")
            summary = _read_json(os.path.join(run_folder, "summary.json"))
        else:
            run_folder = folder
        run = Run(label, folder, summary, _read_results(os.path.join(run_folder, "results.jsonl")), turns=turns)
        _read_store(os.path.join(run_folder, "keval.db"), run)
        runs.append(run)
    return runs
