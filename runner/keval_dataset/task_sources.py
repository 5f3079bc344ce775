"""The task folders of keval-format suites, found for a dataset record by its suite's name, and
checked against the record's `suite_version` before their reference is written into a row.

A record names its suite as the user gave it (`keval` for suites/keval) and the fingerprint of
the task's defining files when it was judged (src/engine/results/record_context.cc). A task edited since
has another fingerprint: its reference would not be the one the candidate was judged against, so
the row keeps the code alone and says why.
"""

import hashlib
import os
import pathlib
import tomllib

FINGERPRINTED = ("task.toml", "reference.py", "problem.py")
REPO = pathlib.Path(__file__).resolve().parents[2]


def fingerprint(task_dir: str, version: int) -> str:
    """As task_fingerprint() in src/engine/results/record_context.cc: "v<version>-<12 hex>"."""
    defining = b""
    for name in FINGERPRINTED:
        path = os.path.join(task_dir, name)
        content = open(path, "rb").read() if os.path.exists(path) else b""
        defining += name.encode() + b"\n" + content + b"\n"
    return f"v{version}-{hashlib.sha256(defining).hexdigest()[:12]}"


class KevalTask:
    """One task folder of keval's own format: its entry, reference source and tolerances."""

    def __init__(self, task_dir: str):
        self.dir = task_dir
        with open(os.path.join(task_dir, "task.toml"), "rb") as f:
            self.toml = tomllib.load(f)
        self.name = self.toml.get("name", os.path.basename(task_dir))
        self.version = int(self.toml.get("version", 1))
        self.entry = self.toml.get("entry", self.name)
        with open(os.path.join(task_dir, "reference.py"), encoding="utf-8") as f:
            self.reference = f.read()
        self.fingerprint = fingerprint(task_dir, self.version)


class TaskSources:
    """Suites by name: those given (`--suite DIR`), then `suites/<name>` of the repository and
    of the working directory."""

    def __init__(self, suite_dirs=()):
        self.named = {os.path.basename(os.path.normpath(d)): d for d in suite_dirs}
        self.cache = {}

    def _suite_dir(self, suite: str):
        if suite in self.named:
            return self.named[suite]
        for root in (REPO, pathlib.Path.cwd()):
            candidate = root / "suites" / suite
            if candidate.is_dir():
                return str(candidate)
        return None

    def find(self, record: dict):
        """(KevalTask, None) when the record's task is found as it was judged, else (None, why)."""
        suite, task = record.get("suite"), record.get("task")
        if not suite or not record.get("suite_version"):
            return None, "no_suite_version"
        key = (suite, task)
        if key not in self.cache:
            self.cache[key] = self._load(suite, task)
        found = self.cache[key]
        if found is None:
            return None, "task_not_found"
        if found.fingerprint != record["suite_version"]:
            return None, "task_changed"
        return found, None

    def _load(self, suite: str, task: str):
        suite_dir = self._suite_dir(suite)
        if suite_dir is None:
            return None
        task_dir = os.path.join(suite_dir, task)
        needed = ("task.toml", "reference.py")
        if not all(os.path.exists(os.path.join(task_dir, n)) for n in needed):
            return None
        if os.path.exists(os.path.join(task_dir, "problem.py")):
            return None  # a KernelBench-format task: its rows carry makora's form already
        return KevalTask(task_dir)
