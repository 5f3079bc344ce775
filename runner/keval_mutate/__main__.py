"""python -m keval_mutate COMMAND ... (called by `keval mutate`).

    generate  --out DIR --golden TASK=PATH [--golden ...] [--operators a,b]
              writes DIR/mutants.jsonl (submissions) and DIR/mutants.index.json
    report    --out DIR
              reads DIR/mutants.index.json and DIR/results.jsonl; writes DIR/mutants.json and .md
    operators lists the operators and the bug each models

Each prints a line or two; a bad input ends with one line naming the file or field, exit 2."""
import argparse
import sys

from .errors import MutateError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m keval_mutate")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", required=True)
    g.add_argument("--golden", action="append", default=[], required=True)
    g.add_argument("--operators", default="")
    r = sub.add_parser("report")
    r.add_argument("--out", required=True)
    sub.add_parser("operators")
    return p


def main() -> int:
    args = parser().parse_args()
    try:
        if args.command == "generate":
            from .generate import choose_operators, generate, parse_golden
            index = generate([parse_golden(g) for g in args.golden], args.out, choose_operators(args.operators))
            invalid = sum(1 for m in index["mutants"] if m["invalid"])
            print(f"made {len(index['mutants'])} mutants of {len(index['tasks'])} task(s)"
                  + (f" ({invalid} do not compile: counted apart, not run)" if invalid else ""))
        elif args.command == "report":
            from .report import write_report
            report = write_report(args.out)
            s = report["suite"]
            rate = "-" if s["kill_rate"] is None else f"{100 * s['kill_rate']:.1f}%"
            print(f"kill rate {rate}: {s['killed']} killed, {s['survived']} survived (not checked for "
                  f"equivalence), {s['invalid']} invalid, {s['unjudged']} unjudged of {s['made']} mutants")
            for task, t in report["tasks"].items():
                for survivor in t["survivors"]:
                    print(f"  survived: {survivor['id']} (line {survivor['line']})")
                if t.get("note"):
                    print(f"  {task}: {t['note']}")
            print(f"wrote {args.out}/mutants.json and {args.out}/mutants.md")
        else:
            from .operators import OPERATORS
            for op in OPERATORS:
                print(f"{op.name}: {op.models}")
    except MutateError as exc:
        print(f"keval: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
