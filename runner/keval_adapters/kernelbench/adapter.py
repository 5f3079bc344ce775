"""The KernelBench adapter's verbs (`python -m keval_adapters kernelbench VERB ...`). The
judges run model code: they are imported only when compare-judges runs."""

from ..common import cli
from ..common.selfcheck import selfcheck_verb
from .submissions import write_submissions
from .tasks import adapt_suite, split_select


def _adapt(args) -> dict:
    levels, require_kernel = split_select(args.select)
    return adapt_suite(args.source, args.out, levels, require_kernel)


def _summary(report: dict, out: str) -> str:
    return (f"kernelbench: {len(report['tasks'])} tasks in {out} ({len(report['scaled'])} with a CPU-sized "
            f"variant, {len(report['skipped'])} skipped)")


def _write(args) -> dict:
    return write_submissions(args.source, args.out, args.suite, split_select(args.select)[0])


def _compare(args) -> int:
    from . import judges

    return judges.compare(args)


class KernelBenchAdapter:
    kinds = ("kernelbench",)

    def verbs(self, kind: str) -> dict:
        return {
            "suite": cli.suite_verb(kind, "KernelBench checkout", "levels, e.g. 1,2 (default: all), and any-code "
                                    "(require_kernel = false: KernelBench's own rule)", _adapt, _summary),
            "submissions": cli.submissions_verb(
                kind, ".py file, .jsonl file or a folder of them", "KernelBench checkout (default: found above --source)",
                _write, select_help="levels to match against (default: all)",
                none_matched="no submission matched a KernelBench problem"),
            "selfcheck": selfcheck_verb("keval-kernelbench-",
                                        lambda args, out: adapt_suite(args.source, out, split_select(args.select)[0])),
            "compare-judges": cli.judges_verb(
                "KernelBench", _compare, "seconds per submission (KernelBench's eval_from_generations: 180)"),
        }


ADAPTER = KernelBenchAdapter()
