"""The compare-judges report every peer adapter writes: per submission, keval's verdict beside
the peer's own call and exec outcome; agreement counts; counts by keval verdict; up to
MAX_EXAMPLES examples of each disagreement. `peer` is the field prefix ("tritonbench",
"kernelbenchx", ...): each item carries `<peer>_call` and `<peer>_exec`."""

import json
import os

MAX_EXAMPLES = 5


def agreement(keval_ok: bool, peer_ok: bool, peer: str) -> str:
    if keval_ok == peer_ok:
        return "agree_pass" if keval_ok else "agree_fail"
    return f"keval_pass_{peer}_fail" if keval_ok else f"keval_fail_{peer}_pass"


def resolve_device(device: str) -> str:
    if device != "auto":
        return device
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except Exception:
        return "cpu"


def read_results(path: str) -> dict:
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows[str(row.get("id"))] = row
    return rows


def tail(text: str, n: int = 400) -> str:
    text = (text or "").strip()
    return text[-n:]


def keval_fields(row: dict) -> dict:
    """What keval said about one submission (its results.jsonl row)."""
    return {"keval_verdict": row.get("verdict"), "keval_reason": (row.get("reasons") or [""])[0],
            "keval_call": bool(row.get("call"))}


def tally(items: list, peer: str) -> dict:
    """Sets each item's `exec` and `call` agreement; returns the report's counted part."""
    counts = {"exec": {}, "call": {}}
    examples = {"exec": {}, "call": {}}
    by_verdict = {}
    for item in items:
        peer_call, peer_exec = bool(item[f"{peer}_call"]), bool(item[f"{peer}_exec"])
        item["exec"] = agreement(item["keval_verdict"] == "pass", peer_exec, peer)
        item["call"] = agreement(item["keval_call"], peer_call, peer)
        v = by_verdict.setdefault(item["keval_verdict"], {"n": 0, f"{peer}_call_pass": 0, f"{peer}_exec_pass": 0})
        v["n"] += 1
        v[f"{peer}_call_pass"] += peer_call
        v[f"{peer}_exec_pass"] += peer_exec
        for which in ("exec", "call"):
            counts[which][item[which]] = counts[which].get(item[which], 0) + 1
            if item[which].startswith("keval_"):
                bucket = examples[which].setdefault(item[which], [])
                if len(bucket) < MAX_EXAMPLES:
                    bucket.append(item)
    return {"n_compared": len(items), "exec": counts["exec"], "call": counts["call"],
            "by_verdict": by_verdict, "disagreements": examples, "items": items}


def write(report: dict, path: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)


def print_report(report: dict, peer: str, label: str, why) -> None:
    """The table; why(item) -> the one-line reason shown for a disagreement's example."""
    print(f"{report['kind']}: {report['n_compared']} submissions compared on {report['device']} "
          f"({report['unmatched']} unmatched lines, {report['not_in_results']} not in the results"
          + (f", {report['skipped_at_deadline']} skipped at --deadline" if report.get("skipped_at_deadline") else "")
          + ")")
    for which in ("exec", "call"):
        c = report[which]
        print(f"{which}: agree {c.get('agree_pass', 0) + c.get('agree_fail', 0)} (pass {c.get('agree_pass', 0)}, "
              f"fail {c.get('agree_fail', 0)}), keval fail / {label} pass {c.get(f'keval_fail_{peer}_pass', 0)}, "
              f"keval pass / {label} fail {c.get(f'keval_pass_{peer}_fail', 0)}")
    if "gold_failures" in report:
        failed = report["gold_failures"]
        print(f"{label}'s own task files run as scripts: {len(failed)} fail"
              + (f" ({', '.join(sorted(failed))})" if failed else ""))
    print(f"by keval verdict (n, {label} call pass, {label} exec pass):")
    for verdict, v in sorted(report["by_verdict"].items(), key=lambda kv: -kv[1]["n"]):
        print(f"  {str(verdict):18} {v['n']:5} {v[f'{peer}_call_pass']:5} {v[f'{peer}_exec_pass']:5}")
    for which in ("exec", "call"):
        for kind, items in sorted(report["disagreements"][which].items()):
            print(f"{which} {kind}, e.g.:")
            for item in items:
                print(f"  {item['id']} ({item['task']}): {why(item)[:200]}")


def finish(report: dict, items: list, peer: str, label: str, why, path: str) -> int:
    """Counts the items into the report, writes it to path and prints the table."""
    report.update(tally(items, peer))
    write(report, path)
    print_report(report, peer, label, why)
    return 0
