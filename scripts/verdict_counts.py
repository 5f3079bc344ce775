"""Verdict counts of keval results files, and every row that did not pass with its reason.

    python3 scripts/verdict_counts.py OUT/results.jsonl [MORE.jsonl ...]

gpu-validate.sh prints this for runs whose full tables are too long to read in a device call's
output (the peers' suites)."""

import collections
import json
import sys


def summarize(path: str) -> str:
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    return f"{path}:{number}: not JSON ({e})"
    counts = collections.Counter(str(r.get("verdict")) for r in rows)
    passed = counts.get("pass", 0)
    share = f"{100.0 * passed / len(rows):.1f}%" if rows else "-"
    lines = [f"{path}: {passed} of {len(rows)} pass ({share}); "
             + ", ".join(f"{v} {n}" for v, n in counts.most_common())]
    for r in rows:
        if r.get("verdict") != "pass":
            reason = " ".join(str((r.get("reasons") or [""])[0]).split())
            lines.append(f"  {r.get('id')} {r.get('verdict')}: {reason[:160]}")
    return "\n".join(lines)


def main(argv: list) -> int:
    if not argv:
        print("usage: verdict_counts.py RESULTS.jsonl [...]", file=sys.stderr)
        return 2
    status = 0
    for path in argv:
        try:
            print(summarize(path))
        except OSError as e:
            print(f"{path}: cannot read ({e.strerror})")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
