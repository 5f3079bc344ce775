"""`report`: mutants.json and mutants.md from the index `generate` wrote and the run's results."""
import contextlib
import json
import os
from collections import Counter

from .classify import EQUIVALENT, INVALID, KILLED, SURVIVED, UNJUDGED, fate
from .errors import MutateError
from .generate import INDEX, JSONL
from .markdown import render_markdown
from .stopping import Stopped

FATES = (KILLED, SURVIVED, EQUIVALENT, INVALID, UNJUDGED)
NOT_CHECKED = ("not checked (--equivalence-trials 0): a survivor may be equivalent to the golden; "
               "each is reported as survived")
RUN_INTERRUPTED = ("the run was interrupted: its unjudged mutants are counted apart and no survivor was run through "
                   "the differential check; run the same command again to finish")


def read_json(path: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise MutateError(path, f"cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise MutateError(path, f"not JSON: {exc}") from None


def read_results(path: str) -> dict:
    results = {}
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    try:
                        result = json.loads(line)
                    except ValueError as exc:
                        raise MutateError(f"{path}:{number}", f"not JSON: {exc}") from None
                    results[result.get("id")] = result
    except OSError as exc:
        raise MutateError(path, f"cannot read: {exc.strerror}") from None
    return results


def read_codes(path: str) -> dict:
    codes = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    entry = json.loads(line)
                    codes[entry["id"]] = entry["code"]
    return codes


def kill_rate(counts: dict):
    """Killed over killed and survived: equivalent mutants are no holes, invalid ones no kernels."""
    judged = counts[KILLED] + counts[SURVIVED]
    return round(counts[KILLED] / judged, 4) if judged else None


def tally(entries: list) -> dict:
    counts = Counter(e["fate"] for e in entries)
    out = {"made": len(entries), **{f: counts.get(f, 0) for f in FATES}}
    out["kill_rate"] = kill_rate(out)
    return out


def _equivalence_note(evidence: dict) -> str:
    if evidence["verdict"] == EQUIVALENT:
        return (f"agrees with the reference on all {evidence['compared']} trials in the task's domain "
                f"({', '.join(evidence['dtypes'])}; {', '.join(evidence['regimes'])})")
    exposed = evidence.get("exposed_by")
    if exposed:
        shape = ", ".join(f"{k}={v}" for k, v in exposed["case"].items() if k != "name")
        bent = exposed.get("bent") or []
        inputs = f" on arguments {', '.join(map(str, bent))}" if bent and bent != [0] else ""
        return (f"exposed by {shape} {exposed['dtype']} {exposed['regime']}{inputs} (seed {exposed['seed']}): "
                f"{exposed['what']}")
    return f"not proven equivalent: {evidence.get('unchecked_because', 'the check did not finish')}"


def task_folder(task: str, golden: str, suite: str = "") -> str:
    """Where a task's files lie: its folder in `suite` when given (a run judged on another
    machine names that machine's paths), else the folder its golden was read from."""
    folder = os.path.join(suite, task) if suite else os.path.dirname(golden)
    if not os.path.isdir(folder):
        hint = "" if suite else " (a run made on another machine: pass --suite with this machine's suite folder)"
        raise MutateError(INDEX, f"task {task}'s folder {folder} is not here{hint}")
    return folder


def check_equivalence(out: str, index: dict, entries: list, trials: int, seed: int, budget_s: float,
                      stops=None, suite: str = "") -> str:
    """Runs each counted task's survivors through the differential check; an equivalent one
    changes fate, every one gets its evidence. Stopped by a signal (stopping.py), the tasks
    checked keep their evidence and the rest stay survived, unchecked; returns why ("": not)."""
    codes = read_codes(os.path.join(out, JSONL))
    from .equivalence import check_task
    for task, info in index["tasks"].items():
        survivors = [e for e in entries if e["task"] == task and e["fate"] == SURVIVED]
        if not survivors:
            continue
        try:
            with stops.interruptible() if stops else contextlib.nullcontext():
                found = check_task(out, task, task_folder(task, info["golden"], suite),
                                   [(e["id"], codes[e["id"]]) for e in survivors], trials, seed, budget_s)
        except Stopped:
            why = (f"the differential check was interrupted ({stops.name}) in {task}: the survivors of the tasks "
                   "not yet checked are reported as survived; run the same command again to finish")
            for entry in entries:
                if entry["fate"] == SURVIVED and not entry["equivalence"]:
                    entry["equivalence"] = f"not checked: {why}"
            return why
        for entry in survivors:
            evidence = found[entry["id"]]
            entry["equivalence"] = _equivalence_note(evidence)
            entry["evidence_file"] = evidence["evidence_file"]
            entry["exposed_by"] = evidence.get("exposed_by")
            if evidence["verdict"] == EQUIVALENT:
                entry["fate"] = EQUIVALENT
    return ""


def build_report(out: str, trials: int = 0, seed: int = 41, budget_s: float = 900.0, run_interrupted: bool = False,
                 stops=None, suite: str = "") -> dict:
    """run_interrupted: keval's run was stopped; its report is partial, with no check."""
    index = read_json(os.path.join(out, INDEX))
    results = read_results(os.path.join(out, "results.jsonl"))
    summary_path = os.path.join(out, "summary.json")
    environment = read_json(summary_path).get("environment", {}) if os.path.exists(summary_path) else {}
    entries = []
    for mutant in index["mutants"]:
        what, verdict, reason = fate(mutant, results.get(mutant["id"]))
        entries.append({**mutant, "fate": what, "verdict": verdict, "reason": reason,
                        "equivalence": "", "evidence_file": "", "exposed_by": None})
    golden_passes = {t for t, info in index["tasks"].items() if results.get(info["golden_id"], {}).get("verdict") == "pass"}
    partial = RUN_INTERRUPTED if run_interrupted else ""
    if trials > 0 and not run_interrupted:
        partial = check_equivalence(out, {"tasks": {t: i for t, i in index["tasks"].items() if t in golden_passes}},
                                    entries, trials, seed, budget_s, stops, suite)
    tasks, counted = {}, []
    for task, info in index["tasks"].items():
        mine = [e for e in entries if e["task"] == task]
        golden = results.get(info["golden_id"], {})
        golden_verdict = golden.get("verdict", "unjudged")
        per_operator = {}
        for name in index["operators"]:
            of_op = [e for e in mine if e["operator"] == name]
            if of_op:
                per_operator[name] = tally(of_op)
        tasks[task] = {
            **tally(mine), "golden_verdict": golden_verdict, "operators": per_operator,
            "survivors": [_brief(e, diff=True, evidence=True) for e in mine if e["fate"] == SURVIVED],
            "equivalents": [_brief(e, diff=True, evidence=True) for e in mine if e["fate"] == EQUIVALENT],
            "killed_by": [_brief(e) for e in mine if e["fate"] == KILLED],
            "invalid_mutants": [_brief(e) for e in mine if e["fate"] == INVALID],
            "unjudged_mutants": [_brief(e) for e in mine if e["fate"] == UNJUDGED],
        }
        if golden_verdict != "pass":  # kills against a failing golden prove nothing
            tasks[task]["kill_rate"] = None
            tasks[task]["note"] = f"the golden's verdict here is {golden_verdict}: its mutants are not counted"
        else:
            counted += mine
    operators = {name: {"models": models, **tally([e for e in counted if e["operator"] == name])}
                 for name, models in index["operators"].items()}
    equivalence = (f"each survivor run against the reference on {trials} trials of the differential check "
                   f"(seed {seed}; docs/mutation.md): equivalent when it agrees on all, else survived with the "
                   f"trial that exposes it" if trials > 0 else NOT_CHECKED)
    if run_interrupted:
        equivalence = "not checked: the run was interrupted"
    return {"device_mode": environment.get("device_mode", ""), "equivalence": equivalence, "partial": partial,
            "suite": tally(counted), "operators": operators, "tasks": tasks}


def _brief(entry: dict, diff: bool = False, evidence: bool = False) -> dict:
    keys = (["id", "operator", "site", "line", "verdict", "reason"] + (["diff"] if diff else [])
            + (["equivalence", "evidence_file", "exposed_by"] if evidence else []))
    return {k: entry[k] for k in keys}


def write_report(out: str, trials: int = 0, seed: int = 41, budget_s: float = 900.0, run_interrupted: bool = False,
                 stops=None, suite: str = "") -> dict:
    report = build_report(out, trials, seed, budget_s, run_interrupted, stops, suite)
    with open(os.path.join(out, "mutants.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(out, "mutants.md"), "w", encoding="utf-8") as f:
        f.write(render_markdown(report))
    return report
