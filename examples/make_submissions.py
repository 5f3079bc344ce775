"""Packs examples/src/<id>.py into examples/submissions.jsonl and examples/expected_verdicts.json.

Each source starts with a header naming its task, the verdict keval must give, and why:

    # task: vector_add
    # expect: mismatch
    # why: the grid drops the tail

The header is stripped from the packed code (a submission should not carry its own answer).
Run from anywhere: python examples/make_submissions.py
"""

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = re.compile(r"^# (task|expect|why): (.*)$")
VERDICTS = {"pass", "bad_submission", "missing_entry", "compile_error", "runtime_error", "crash",
            "timeout", "wrong_shape", "wrong_dtype", "mismatch", "nan_mismatch", "nondeterministic",
            "input_mutated", "out_of_bounds", "no_kernel", "library_fallback", "tampering"}


def parse(path):
    lines = path.read_text().splitlines(keepends=True)
    meta = {}
    while lines and (m := HEADER.match(lines[0].rstrip("\n"))):
        meta[m.group(1)] = m.group(2).strip()
        lines.pop(0)
    missing = {"task", "expect", "why"} - set(meta)
    if missing:
        raise SystemExit(f"{path}: header lacks {sorted(missing)}")
    if meta["expect"] not in VERDICTS:
        raise SystemExit(f"{path}: unknown verdict {meta['expect']!r}")
    return meta, "".join(lines)


def main():
    submissions, expected = [], {}
    for path in sorted((HERE / "src").glob("*.py")):
        meta, code = parse(path)
        submissions.append({"id": path.stem, "task": meta["task"], "code": code})
        expected[path.stem] = meta["expect"]
    with open(HERE / "submissions.jsonl", "w") as f:
        for s in submissions:
            f.write(json.dumps(s) + "\n")
    (HERE / "expected_verdicts.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(f"wrote {len(submissions)} submissions")


if __name__ == "__main__":
    main()
