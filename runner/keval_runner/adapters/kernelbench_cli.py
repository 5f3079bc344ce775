"""`python -m keval_runner.adapters kernelbench VERB ...`: the command line of the kernelbench adapter
(docs/peers.md). Apart from kernelbench.py so that its judges, which import it, are imported
only from here."""

import sys

from . import kb_common
from .kb_common import AdapterError
from .kernelbench import adapt_suite, split_select, write_submissions

def _suite_args(p):
    p.add_argument("--source", required=True, help="KernelBench checkout")
    p.add_argument("--out", required=True, help="folder for the native tasks")
    p.add_argument("--select", default="", help="levels, e.g. 1,2 (default: all), and any-code "
                                                "(require_kernel = false: KernelBench's own rule)")


def _suite(args):
    levels, require_kernel = split_select(args.select)
    report = adapt_suite(args.source, args.out, levels, require_kernel)
    for file, why in sorted(report["skipped"].items()):
        print(f"kernelbench: skipped {file}: {why}", file=sys.stderr)
    print(f"kernelbench: {len(report['tasks'])} tasks in {args.out} ({len(report['scaled'])} with a CPU-sized "
          f"variant, {len(report['skipped'])} skipped)", file=sys.stderr)
    return 0


def _submissions_args(p):
    p.add_argument("--source", required=True, help=".py file, .jsonl file or a folder of them")
    p.add_argument("--out", required=True)
    p.add_argument("--suite", default=None, help="KernelBench checkout (default: found above --source)")
    p.add_argument("--select", default="", help="levels to match against (default: all)")


def _submissions(args):
    counts = write_submissions(args.source, args.out, args.suite, split_select(args.select)[0])
    print("kernelbench: " + ", ".join(f"{v} by {k}" for k, v in sorted(counts.items())), file=sys.stderr)
    matched = sum(v for k, v in counts.items() if k != "unmatched")
    if not matched:
        raise AdapterError(f"{args.source}: no submission matched a KernelBench problem")
    return 0


def _selfcheck(args):
    levels, _ = split_select(args.select)
    return kb_common.run_selfcheck(args, "keval-kernelbench-", lambda out: adapt_suite(args.source, out, levels))


def _judges_args(p):
    kb_common.add_judges_arguments(p, "KernelBench", "seconds per submission (KernelBench's eval_from_generations: 180)")


def _judges(args):
    from . import kernelbench_judges  # runs model code: loaded only when asked for

    return kernelbench_judges.compare(args)


def main(kind: str, argv: list) -> int:
    return kb_common.run_main(kind, argv, {
        "suite": (_suite_args, _suite),
        "submissions": (_submissions_args, _submissions),
        "selfcheck": (kb_common.add_selfcheck_arguments, _selfcheck),
        "compare-judges": (_judges_args, _judges),
    })
