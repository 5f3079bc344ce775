"""`python -m keval_adapters KIND VERB ...`: peer benchmarks as native keval tasks.

The registry (registry.py) finds KIND's adapter (common/adapter.py), whose verbs run under one
shared command line (common/cli.py). On failure an adapter exits non-zero with a one-line reason
as its last stderr line (docs/peers.md).
"""

import sys

from .common.cli import run_verbs
from .registry import PACKAGES, adapter_for


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in PACKAGES:
        known = ", ".join(sorted(PACKAGES))
        got = repr(argv[0]) if argv else "nothing"
        print(f"keval adapters: unknown kind {got} (known: {known})", file=sys.stderr)
        return 2
    kind = argv[0]
    return run_verbs(kind, argv[1:], adapter_for(kind).verbs(kind))


if __name__ == "__main__":
    sys.exit(main())
