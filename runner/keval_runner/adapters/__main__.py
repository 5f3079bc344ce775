"""`python -m keval_runner.adapters KIND VERB ...`: peer benchmarks as native keval tasks.

Each KIND's module is imported only when asked for, so one adapter's missing dependency
never breaks another. A module exposes `main(kind, argv) -> int`. On failure an adapter
exits non-zero with a one-line reason as its last stderr line (docs/peers.md).
"""

import importlib
import sys

ADAPTERS = {
    "tritonbench-g": "tritonbench_cli",
    "tritonbench-t": "tritonbench_cli",
    "kernelbench": "kernelbench_cli",
    "kernelbenchx": "kernelbenchx_cli",
}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ADAPTERS:
        known = ", ".join(sorted(ADAPTERS))
        got = repr(argv[0]) if argv else "nothing"
        print(f"keval adapters: unknown kind {got} (known: {known})", file=sys.stderr)
        return 2
    kind = argv[0]
    module = importlib.import_module(f"{__package__ or 'keval_runner.adapters'}.{ADAPTERS[kind]}")
    return int(module.main(kind, argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
