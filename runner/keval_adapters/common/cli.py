"""The command line every adapter shares: one parser per KIND with the adapter's verbs, the
one-line reason on failure, and the verbs whose shape is the same for each peer."""

import argparse
import sys
import traceback

from .adapter import Verb
from .errors import AdapterError


def run_verbs(kind: str, argv: list, verbs: dict) -> int:
    """Runs the verb argv[0] names. The user's mistakes (AdapterError, a file that cannot be read)
    end with `KIND: reason`, anything else with its traceback and then a one-line reason: the
    last stderr line is what keval prints."""
    parser = argparse.ArgumentParser(prog=f"python -m keval_adapters {kind}")
    sub = parser.add_subparsers(dest="verb", required=True)
    for name, verb in verbs.items():
        verb.configure(sub.add_parser(name, **({"help": verb.help} if verb.help else {})))
    args = parser.parse_args(argv)
    try:
        return int(verbs[args.verb].run(args) or 0)
    except (AdapterError, OSError) as e:
        print(f"{kind}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - the last stderr line is what keval prints
        traceback.print_exc()
        print(f"{kind} adapter failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
              file=sys.stderr)
        return 1


def suite_verb(kind: str, checkout_help: str, select_help: str, adapt, summary, help: str = "") -> Verb:
    """`suite --source CHECKOUT --out DIR [--select X]`. adapt(args) -> the report (`tasks`,
    `skipped`: file -> why); each skipped file is listed, then summary(report, out)."""

    def configure(p):
        p.add_argument("--source", required=True, help=checkout_help)
        p.add_argument("--out", required=True, help="folder for the native tasks")
        p.add_argument("--select", default="", help=select_help)

    def run(args):
        report = adapt(args)
        for file, why in sorted(report["skipped"].items()):
            print(f"{kind}: skipped {file}: {why}", file=sys.stderr)
        print(summary(report, args.out), file=sys.stderr)
        return 0

    return Verb(configure, run, help)


def submissions_verb(kind: str, source_help: str, suite_help: str, write, select_help: str = None,
                     none_matched: str = None, help: str = "") -> Verb:
    """`submissions --source PATH --out OUT.jsonl [--suite CHECKOUT]`. write(args) -> counts by
    how the items were matched ("unmatched" for the rest); with none_matched, a source that
    matches nothing is the user's mistake."""

    def configure(p):
        p.add_argument("--source", required=True, help=source_help)
        p.add_argument("--out", required=True)
        p.add_argument("--suite", default=None, help=suite_help)
        if select_help:
            p.add_argument("--select", default="", help=select_help)

    def run(args):
        counts = write(args)
        print(f"{kind}: " + ", ".join(f"{v} by {k}" for k, v in sorted(counts.items())), file=sys.stderr)
        if none_matched and not any(k != "unmatched" for k in counts):
            raise AdapterError(f"{args.source}: {none_matched}")
        return 0

    return Verb(configure, run, help)


def judges_verb(peer: str, compare, timeout_help: str = None,
                source_help: str = "the submissions that run used (.py, .jsonl, folder)") -> Verb:
    """`compare-judges`: compare(args), the peer's own criterion beside keval's results."""

    def configure(p):
        p.add_argument("--results", required=True, help="results.jsonl of a keval run on these submissions")
        p.add_argument("--source", required=True, help=source_help)
        p.add_argument("--suite", default=None, help=f"{peer} checkout (default: above --source)")
        p.add_argument("--out", required=True, help="JSON report to write")
        p.add_argument("--python", default=sys.executable)
        p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
        p.add_argument("--timeout", type=float, default=300.0, help=timeout_help)
        p.add_argument("--jobs", type=int, default=2)
        p.add_argument("--deadline", type=float, default=0.0,
                       help="seconds the whole comparison may take (0: no limit); scripts not run by then are skipped")

    return Verb(configure, compare, f"keval's verdicts against {peer}'s own criterion")
