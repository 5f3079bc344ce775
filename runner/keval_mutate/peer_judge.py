"""One peer's own check over a batch of submissions, through `python -m keval_adapters KIND
compare-judges` (what `keval compare-judges` runs): the submissions written in the peer's
format, keval's verdicts as the results file it compares with, the peer's call and exec read
back from its report. The criteria themselves live in runner/keval_adapters/*/criterion.py."""
import json
import os
import subprocess
from typing import NamedTuple

from .errors import MutateError

RUNNER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# each compare-judges report's field prefix
PREFIX = {"kernelbench": "kernelbench", "kernelbenchx": "kernelbenchx", "tritonbench-t": "tritonbench"}


class Submission(NamedTuple):
    id: str
    peer_task: str
    code: str
    keval_verdict: str
    keval_reason: str


class PeerRun(NamedTuple):
    python: str
    device: str
    timeout: float
    jobs: int


def submission_line(kind: str, s: Submission) -> dict:
    """The submission in a form the peer's adapter matches to peer_task."""
    if kind == "kernelbench":
        return {"task": s.peer_task, "id": s.id, "code": s.code}
    if kind == "kernelbenchx":
        return {"file": s.peer_task, "id": s.id, "predict": s.code}
    return {"file": s.peer_task + ".py", "predict": s.code}  # TritonBench ids are FILE_STEM:LINE


def peer_id(kind: str, stem: str, line: int, s: Submission) -> str:
    return f"{stem}:{line}" if kind == "tritonbench-t" else s.id


def peer_error(kind: str, item: dict) -> str:
    if kind == "tritonbench-t":
        if not item["tritonbench_call"]:
            return item.get("tritonbench_stderr", "")
        return "stdout differs from the task file's" if not item["tritonbench_exec"] else ""
    return item.get(f"{PREFIX[kind]}_error", "")


def judge(kind: str, checkout: str, submissions: list, folder: str, name: str, run: PeerRun) -> dict:
    """id -> {"passed": bool, "error": str} for each submission the peer judged; the files
    (NAME.jsonl, NAME.results.jsonl, NAME.report.json, NAME.log) stay in folder."""
    os.makedirs(folder, exist_ok=True)
    source = os.path.join(folder, f"{name}.jsonl")
    results = os.path.join(folder, f"{name}.results.jsonl")
    report = os.path.join(folder, f"{name}.report.json")
    ids = {}
    with open(source, "w", encoding="utf-8") as subs, open(results, "w", encoding="utf-8") as rows:
        for line, s in enumerate(submissions, 1):
            pid = peer_id(kind, name, line, s)
            ids[pid] = s.id
            subs.write(json.dumps(submission_line(kind, s)) + "\n")
            rows.write(json.dumps({"id": pid, "task": s.peer_task, "verdict": s.keval_verdict,
                                   "reasons": [s.keval_reason] if s.keval_reason else [], "call": True}) + "\n")
    command = [run.python, "-m", "keval_adapters", kind, "compare-judges", "--source", source, "--results", results,
               "--suite", checkout, "--out", report, "--device", run.device, "--timeout", str(run.timeout),
               "--jobs", str(run.jobs)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [RUNNER, os.environ.get("PYTHONPATH")])))
    with open(os.path.join(folder, f"{name}.log"), "w", encoding="utf-8") as log:
        proc = subprocess.run(command, stdout=log, stderr=subprocess.PIPE, text=True, env=env)
        log.write(proc.stderr)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise MutateError(f"{kind} compare-judges", last)
    with open(report, encoding="utf-8") as f:
        items = json.load(f)["items"]
    prefix = PREFIX[kind]
    return {ids[item["id"]]: {"passed": bool(item[f"{prefix}_exec"]), "error": peer_error(kind, item)}
            for item in items if item["id"] in ids}
