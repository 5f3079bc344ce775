"""Jobs that run a program's code, done in a child process with a deadline per job.

The child (`python -m MODULE IN OUT`) answers one JSON line per job of IN, in order. When it
writes nothing for `seconds` (plus `startup` for a child's first job, which imports torch and
Triton), or dies, the job it was on gets `{"why": "timeout"}` (or `"child_died"`) and a new
child takes up the rest: a program that hangs or kills its process costs its own job only. Results are cached in a JSON-lines file by the jobs' `key`.

A dataset's programs may be model-written, so the child confines itself before the first job: a
network namespace of its own (no connection leaves it) and bounded file sizes and descriptors.
It still runs as the invoking user (docs/trust.md says what that leaves).
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from .task_sources import REPO


def read_cache(path) -> dict:
    found = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    item = json.loads(line)
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


def _keep(answers: list, already: int, found: dict, sink) -> int:
    """Records answers[already:] (in `found` and the cache as they come); returns len(answers)."""
    for answer in answers[already:]:
        found[answer["key"]] = answer
        if sink:
            sink.write(json.dumps(answer) + "\n")
            sink.flush()
    return max(already, len(answers))


def run(jobs: list, module: str, seconds: float, cache=None, env=None, startup: float = 60.0) -> dict:
    """key -> the child's answer for each job (jobs: dicts with a unique `key`), and the cache's."""
    found = read_cache(cache)
    todo = [job for job in jobs if job["key"] not in found]
    sink = open(cache, "a", encoding="utf-8") if cache else None
    try:
        with tempfile.TemporaryDirectory() as folder:
            while todo:
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
                        done = _keep(answers.read(), done, found, sink)
                    if child.poll() is not None:
                        done = _keep(answers.read(), done, found, sink)
                        why = None if done >= len(todo) else "child_died"
                        break
                    if time.monotonic() - last > seconds + (startup if done == 0 else 0.0):
                        os.killpg(child.pid, signal.SIGKILL)
                        child.wait()
                        done, why = _keep(answers.read(), done, found, sink), "timeout"
                        break
                if why and done < len(todo):
                    done = _keep([{"key": todo[done]["key"], "why": why}], 0, found, sink) + done
                todo = todo[done:]
    finally:
        if sink:
            sink.close()
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
