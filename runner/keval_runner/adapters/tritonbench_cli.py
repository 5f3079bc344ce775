"""`python -m keval_runner.adapters tritonbench VERB ...`: the command line of the tritonbench adapter
(docs/peers.md). Apart from tritonbench.py so that its judges, which import it, are imported
only from here."""

import argparse
import sys

from .tritonbench import AdapterError, adapt_suite, write_submissions

# ---------------------------------------------------------------------------------------------
# Command line


def main(kind: str, argv: list) -> int:
    letter = {"tritonbench-g": "G", "tritonbench-t": "T"}[kind]
    parser = argparse.ArgumentParser(prog=f"python -m keval_runner.adapters {kind}")
    verbs = parser.add_subparsers(dest="verb", required=True)
    suite = verbs.add_parser("suite", help="TritonBench data files -> native task folders")
    suite.add_argument("--source", required=True)
    suite.add_argument("--out", required=True)
    suite.add_argument("--select", default="", help="comma list of options: any-code (require_kernel = false)")
    subs = verbs.add_parser("submissions", help="LLM_generated/*.jsonl -> native JSONL")
    subs.add_argument("--source", required=True)
    subs.add_argument("--out", required=True)
    subs.add_argument("--suite", default=None)
    judges = verbs.add_parser("compare-judges", help="keval's verdicts against TritonBench's own criterion")
    judges.add_argument("--results", required=True, help="results.jsonl of a keval run on these submissions")
    judges.add_argument("--source", required=True, help="the LLM_generated JSONL that run used")
    judges.add_argument("--suite", default=None, help="the TritonBench checkout (default: above --source)")
    judges.add_argument("--out", required=True, help="JSON report to write")
    judges.add_argument("--python", default=sys.executable)
    judges.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    judges.add_argument("--timeout", type=float, default=300.0)
    judges.add_argument("--jobs", type=int, default=2)
    judges.add_argument("--deadline", type=float, default=0.0,
                        help="seconds the whole comparison may take (0: no limit); scripts not run by then are skipped")
    if letter == "G":
        check = verbs.add_parser("preprocessing-check",
                                 help="gold files that TritonBench's own G pre-processing breaks (static)")
        check.add_argument("--source", required=True, help="the TritonBench checkout")
        check.add_argument("--out", default=None, help="also write the findings as JSON")
    args = parser.parse_args(argv)
    try:
        if args.verb == "preprocessing-check":
            from . import tritonbench_preprocessing
            return tritonbench_preprocessing.check(args.source, args.out)
        if args.verb == "suite":
            options = {o.strip() for o in args.select.split(",") if o.strip()}
            unknown = options - {"any-code"}
            if unknown:
                raise AdapterError(f"unknown option {sorted(unknown)[0]!r} after {kind}:PATH: (known: any-code)")
            summary = adapt_suite(args.source, args.out, letter, options)
            for file, why in sorted(summary["skipped"].items()):
                print(f"{kind}: skipped {file}: {why}", file=sys.stderr)
            print(f"{kind}: {summary['tasks']} tasks in {args.out}, {len(summary['skipped'])} skipped", file=sys.stderr)
        elif args.verb == "submissions":
            counts = write_submissions(args.source, args.out, letter, args.suite)
            print(f"{kind}: matched " + ", ".join(f"{v} by {k}" for k, v in sorted(counts.items())), file=sys.stderr)
        else:
            from . import tritonbench_judges
            return tritonbench_judges.compare(args, letter)
    except AdapterError as exc:
        print(f"{kind}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{kind}: {exc}", file=sys.stderr)
        return 1
    return 0
