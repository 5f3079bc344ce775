"""`report`: mutants.json and mutants.md from the index `generate` wrote and the run's results."""
import json
import os
from collections import Counter

from .classify import INVALID, KILLED, SURVIVED, UNJUDGED, fate
from .errors import MutateError
from .generate import INDEX
from .markdown import render_markdown

FATES = (KILLED, SURVIVED, INVALID, UNJUDGED)
EQUIVALENCE = ("not checked: a survivor may be equivalent to the golden; each is reported as "
               "survived (not checked for equivalence)")


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


def kill_rate(counts: dict):
    judged = counts[KILLED] + counts[SURVIVED]
    return round(counts[KILLED] / judged, 4) if judged else None


def tally(entries: list) -> dict:
    counts = Counter(e["fate"] for e in entries)
    out = {"made": len(entries), **{f: counts.get(f, 0) for f in FATES}}
    out["kill_rate"] = kill_rate(out)
    return out


def build_report(out: str) -> dict:
    index = read_json(os.path.join(out, INDEX))
    results = read_results(os.path.join(out, "results.jsonl"))
    summary_path = os.path.join(out, "summary.json")
    environment = read_json(summary_path).get("environment", {}) if os.path.exists(summary_path) else {}
    entries = []
    for mutant in index["mutants"]:
        what, verdict, reason = fate(mutant, results.get(mutant["id"]))
        entries.append({**mutant, "fate": what, "verdict": verdict, "reason": reason})
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
            "survivors": [_brief(e, diff=True) for e in mine if e["fate"] == SURVIVED],
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
    return {"device_mode": environment.get("device_mode", ""), "equivalence": EQUIVALENCE,
            "suite": tally(counted), "operators": operators, "tasks": tasks}


def _brief(entry: dict, diff: bool = False) -> dict:
    keys = ["id", "operator", "site", "line", "verdict", "reason"] + (["diff"] if diff else [])
    return {k: entry[k] for k in keys}


def write_report(out: str) -> dict:
    report = build_report(out)
    with open(os.path.join(out, "mutants.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(out, "mutants.md"), "w", encoding="utf-8") as f:
        f.write(render_markdown(report))
    return report
