"""`python -m keval_runner.adapters kernelbenchx VERB ...`: the command line of the kernelbenchx adapter
(docs/peers.md). Apart from kernelbenchx.py so that its judges, which import it, are imported
only from here."""

import sys

from . import kb_common, kernelbenchx_published
from .kb_common import AdapterError
from .kernelbenchx import adapt_suite, split_select, write_submissions

def _suite_args(p):
    p.add_argument("--source", required=True, help="KernelBenchX checkout")
    p.add_argument("--out", required=True)
    p.add_argument("--select", default="", help="categories, e.g. Activation,Math (default: all), and any-code "
                   "(require_kernel = false)")


def _suite(args):
    report = adapt_suite(args.source, args.out, *split_select(args.select))
    for file, why in sorted(report["skipped"].items()):
        print(f"kernelbenchx: skipped {file}: {why}", file=sys.stderr)
    print(f"kernelbenchx: {len(report['tasks'])} tasks in {args.out} ({len(report['skipped'])} skipped, "
          f"{len(report['orphan_files'])} data files not in the metadata)", file=sys.stderr)
    return 0


def _submissions_args(p):
    p.add_argument("--source", required=True, help="JSONL ({predict, file}), .py file or a folder of them")
    p.add_argument("--out", required=True)
    p.add_argument("--suite", default=None, help="KernelBenchX checkout (needed to match by instruction)")


def _submissions(args):
    counts = write_submissions(args.source, args.out, args.suite)
    print("kernelbenchx: " + ", ".join(f"{v} by {k}" for k, v in sorted(counts.items())), file=sys.stderr)
    if not any(k != "unmatched" for k in counts):
        raise AdapterError(f"{args.source}: no submission matched a KernelBenchX task")
    return 0


def _selfcheck(args):
    return kb_common.run_selfcheck(args, "keval-kernelbenchx-",
                                   lambda out: adapt_suite(args.source, out, *split_select(args.select)))


def _judges_args(p):
    kb_common.add_judges_arguments(p, "KernelBenchX", "seconds per script (KernelBenchX has no limit)")


def _judges(args):
    from . import kernelbenchx_judges  # runs model code: loaded only when asked for

    return kernelbenchx_judges.compare(args)


def main(kind: str, argv: list) -> int:
    return kb_common.run_main(kind, argv, {
        "suite": (_suite_args, _suite),
        "submissions": (_submissions_args, _submissions),
        "selfcheck": (kb_common.add_selfcheck_arguments, _selfcheck),
        "compare-judges": (_judges_args, _judges),
        "published-times": (kernelbenchx_published.configure, kernelbenchx_published.run),
    })
