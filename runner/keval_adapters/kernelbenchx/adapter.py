"""The KernelBenchX adapter's verbs (`python -m keval_adapters kernelbenchx VERB ...`). The
judges run model code: they are imported only when compare-judges runs."""

from ..common import cli
from ..common.adapter import Verb
from ..common.selfcheck import selfcheck_verb
from . import published
from .submissions import write_submissions
from .tasks import adapt_suite, split_select


def _adapt(args) -> dict:
    return adapt_suite(args.source, args.out, *split_select(args.select))


def _summary(report: dict, out: str) -> str:
    return (f"kernelbenchx: {len(report['tasks'])} tasks in {out} ({len(report['skipped'])} skipped, "
            f"{len(report['orphan_files'])} data files not in the metadata)")


def _compare(args) -> int:
    from . import judges

    return judges.compare(args)


class KernelBenchXAdapter:
    kinds = ("kernelbenchx",)

    def verbs(self, kind: str) -> dict:
        return {
            "suite": cli.suite_verb(kind, "KernelBenchX checkout", "categories, e.g. Activation,Math (default: "
                                    "all), and any-code (require_kernel = false)", _adapt, _summary),
            "submissions": cli.submissions_verb(
                kind, "JSONL ({predict, file}), .py file or a folder of them",
                "KernelBenchX checkout (needed to match by instruction)",
                lambda args: write_submissions(args.source, args.out, args.suite),
                none_matched="no submission matched a KernelBenchX task"),
            "selfcheck": selfcheck_verb("keval-kernelbenchx-",
                                        lambda args, out: adapt_suite(args.source, out, *split_select(args.select))),
            "compare-judges": cli.judges_verb("KernelBenchX", _compare, "seconds per script (KernelBenchX has no limit)"),
            "published-times": Verb(published.configure, published.run,
                                    "KernelBenchX's published golden times beside keval's"),
        }


ADAPTER = KernelBenchXAdapter()
