"""Where the runner folder (keval_runner and keval_adapters) lives, for the child interpreters
the adapters start (compare-judges' samples, TritonBench's sizing dry run): they may be another
Python than this one."""

import os

RUNNER_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def child_command(module: str, function: str) -> str:
    """`python -c` text that calls module.function(sys.argv[1:]) and exits with its result,
    keval_runner and keval_adapters found in RUNNER_DIR whatever the child's own sys.path."""
    return (f"import sys; sys.path.insert(0, {RUNNER_DIR!r}); "
            f"from {module} import {function}; del sys.path[0]; "
            f"sys.exit({function}(sys.argv[1:]))")
