"""The TritonBench adapter's verbs (`python -m keval_adapters tritonbench-g|tritonbench-t
VERB ...`). The judges run model code: they are imported only when compare-judges runs."""

from ..common import cli
from ..common.adapter import Verb
from ..common.errors import AdapterError
from .submissions import write_submissions
from .tasks import adapt_suite

LETTERS = {"tritonbench-g": "G", "tritonbench-t": "T"}
OPTIONS = {"any-code"}


def _adapt(kind: str, args) -> dict:
    options = {o.strip() for o in args.select.split(",") if o.strip()}
    unknown = options - OPTIONS
    if unknown:
        raise AdapterError(f"unknown option {sorted(unknown)[0]!r} after {kind}:PATH: (known: any-code)")
    return adapt_suite(args.source, args.out, LETTERS[kind], options)


def _compare(kind: str, args) -> int:
    from . import judges

    return judges.compare(args, LETTERS[kind])


def _preprocessing_check():
    def configure(p):
        p.add_argument("--source", required=True, help="the TritonBench checkout")
        p.add_argument("--out", default=None, help="also write the findings as JSON")

    def run(args):
        from . import preprocessing

        return preprocessing.check(args.source, args.out)

    return Verb(configure, run, "gold files that TritonBench's own G pre-processing breaks (static)")


class TritonBenchAdapter:
    kinds = tuple(LETTERS)

    def verbs(self, kind: str) -> dict:
        verbs = {
            "suite": cli.suite_verb(kind, "TritonBench checkout", "comma list of options: any-code (require_kernel = false)",
                                    lambda args: _adapt(kind, args),
                                    lambda report, out: f"{kind}: {len(report['tasks'])} tasks in {out}, "
                                                        f"{len(report['skipped'])} skipped",
                                    help="TritonBench data files -> native task folders"),
            "submissions": cli.submissions_verb(
                kind, "LLM_generated/*.jsonl file", "TritonBench checkout (default: above --source)",
                lambda args: write_submissions(args.source, args.out, LETTERS[kind], args.suite),
                help="LLM_generated/*.jsonl -> native JSONL"),
            "compare-judges": cli.judges_verb("TritonBench", lambda args: _compare(kind, args),
                                              source_help="the LLM_generated JSONL that run used"),
        }
        if LETTERS[kind] == "G":
            verbs["preprocessing-check"] = _preprocessing_check()
        return verbs


ADAPTER = TritonBenchAdapter()
