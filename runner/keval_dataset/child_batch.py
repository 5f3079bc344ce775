"""Jobs that run a program's code, done in a child process with a deadline per job.

The child (`python -m MODULE IN OUT`) answers one JSON line per job of IN, in order. When it
writes nothing for `seconds` (plus `startup` for a child's first job, which imports torch and
Triton), or dies, the job it was on gets `{"why": "timeout"}` (or `"child_died"`) and a new
child takes up the rest: a program that hangs or kills its process costs its own job only.
Results are appended to a JSON-lines cache by the jobs' `key` as they come. Several children may
run at once (`workers`), and a wall-clock deadline stops them all, leaving the jobs they were on
for a later run.

A dataset's programs may be model-written, so the child confines itself before the first job: a
network namespace of its own (no connection leaves it) and bounded file sizes and descriptors.
It still runs as the invoking user (docs/trust.md says what that leaves).
"""

import collections
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .task_sources import REPO


def read_cache(path) -> dict:
    found = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    item = json.loads(line) if line.strip() else None
                except json.JSONDecodeError:
                    item = None  # a line cut short by a writer that was killed: that job is done again
                if item:
                    found[item["key"]] = item
    return found


class _Answers:
    """The complete lines a child has written to its answer file so far."""

    def __init__(self, path: str):
        self.path, self.offset, self.items = path, 0, []

    def read(self) -> list:
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                text = f.read()
            complete = text[:text.rfind(b"\n") + 1]
            self.offset += len(complete)
            self.items += [json.loads(line) for line in complete.decode("utf-8").splitlines() if line.strip()]
        return self.items


class _Keeper:
    """Answers as they come: into `found` and appended to the cache (opened at the first answer,
    so a cache that needs nothing added may be read-only), from any worker thread."""

    def __init__(self, found: dict, cache, stamp):
        self.found, self.cache, self.stamp = found, cache, stamp or {}
        self.sink, self.lock = None, threading.Lock()

    def keep(self, answers: list, already: int) -> int:
        """Records answers[already:]; returns len(answers)."""
        with self.lock:
            for answer in answers[already:]:
                answer = dict(answer, **self.stamp)
                self.found[answer["key"]] = answer
                if self.cache:
                    self._sink().write(json.dumps(answer) + "\n")
                    self.sink.flush()
        return max(already, len(answers))

    def _sink(self):
        if self.sink is None:
            cut = os.path.exists(self.cache) and os.path.getsize(self.cache) > 0 and not _ends_line(self.cache)
            self.sink = open(self.cache, "a", encoding="utf-8")
            if cut:
                self.sink.write("\n")  # end a line a killed writer left unfinished
        return self.sink

    def close(self):
        if self.sink:
            self.sink.close()


def _ends_line(path: str) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def _past(deadline) -> bool:
    return deadline is not None and time.monotonic() >= deadline


def _kill(child) -> None:
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def _batch(todo: list, module: str, seconds: float, env, startup: float, deadline, keeper: _Keeper) -> None:
    """The jobs `todo` in one child after another, each child taking up where the last stopped,
    until all are answered or `deadline` passes."""
    with tempfile.TemporaryDirectory() as folder:
        while todo and not _past(deadline):
            source, out = os.path.join(folder, "in.jsonl"), os.path.join(folder, "out.jsonl")
            with open(source, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(job) + "\n" for job in todo)
            if os.path.exists(out):
                os.remove(out)
            child_env = {**os.environ, "PYTHONPATH": os.path.join(REPO, "runner"), **(env or {})}
            child = subprocess.Popen([sys.executable, "-m", module, source, out], env=child_env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            answers, done, size, last, why = _Answers(out), 0, 0, time.monotonic(), None
            while True:
                time.sleep(0.05)
                grown = os.path.getsize(out) if os.path.exists(out) else 0
                if grown > size:
                    size, last = grown, time.monotonic()
                    done = keeper.keep(answers.read(), done)
                if child.poll() is not None:
                    done = keeper.keep(answers.read(), done)
                    why = None if done >= len(todo) else "child_died"
                    break
                if _past(deadline):  # the job it was on is not answered: a later run does it
                    _kill(child)
                    keeper.keep(answers.read(), done)
                    return
                if time.monotonic() - last > seconds + (startup if done == 0 else 0.0):
                    _kill(child)
                    done, why = keeper.keep(answers.read(), done), "timeout"
                    break
            if why and done < len(todo):
                done = keeper.keep([{"key": todo[done]["key"], "why": why}], 0) + done
            todo = todo[done:]


def chunks(todo: list, workers: int) -> list:
    """todo cut for `workers` children: about four pieces a worker, so one that draws slow jobs
    does not hold the rest, but no piece under 8 jobs where there are that many a worker (each
    piece starts a child, which imports torch and Triton)."""
    if workers <= 1:
        return [todo] if todo else []
    size = max(math.ceil(len(todo) / (workers * 4)), min(8, math.ceil(len(todo) / workers)), 1)
    return [todo[i:i + size] for i in range(0, len(todo), size)]


def run(jobs: list, module: str, seconds: float, cache=None, env=None, startup: float = 60.0, workers: int = 1,
        deadline=None, stamp=None) -> dict:
    """key -> the child's answer for each job (jobs: dicts with a unique `key`), and the cache's.
    `workers` children run at once; at `deadline` (a time.monotonic() value) they are stopped, and
    the jobs not answered by then are left out of the answer and the cache. `stamp` is added to
    every answer recorded."""
    found = read_cache(cache)
    pieces = collections.deque(chunks([job for job in jobs if job["key"] not in found], workers))
    keeper = _Keeper(found, cache, stamp)

    def work():
        while not _past(deadline):
            try:
                piece = pieces.popleft()
            except IndexError:
                return
            _batch(piece, module, seconds, env, startup, deadline, keeper)

    try:
        threads = [threading.Thread(target=work) for _ in range(max(1, min(workers, len(pieces))))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        keeper.close()
    return found


CHILD_LIMITS = {"fsize_bytes": 1 << 28, "nofile": 1024}


def confine() -> list:
    """The child's confinement (see above); returns what could not be applied."""
    from keval_runner.sandbox.sandbox import apply_rlimits, isolate_network

    warnings = []
    isolate_network(False, warnings)
    apply_rlimits(CHILD_LIMITS, warnings)
    return warnings


def serve(source: str, out: str, answer) -> None:
    """The child's loop: `answer(job)` for each job of `source`, one line each to `out`."""
    for warning in confine():
        print(f"keval_dataset: {warning}", file=sys.stderr)
    with open(source, encoding="utf-8") as f, open(out, "a", encoding="utf-8") as sink:
        for line in f:
            job = json.loads(line)
            try:
                result = answer(job)
            except Exception as error:  # noqa: BLE001 - the job's reason, not the batch's end
                result = {"why": f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"}
            sink.write(json.dumps(dict(result, key=job["key"])) + "\n")
            sink.flush()
