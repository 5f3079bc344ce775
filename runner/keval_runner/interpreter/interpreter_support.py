"""Makes common Triton features usable under the CPU interpreter (TRITON_INTERPRET=1).

triton.autotune benchmarks its configs with the active GPU driver's benchmarker, and the
interpreter has no driver ("0 active drivers"), so any multi-config autotuned kernel would
fail in CPU mode only. In CPU mode the benchmark is replaced by equal timings for every
config: the autotuner then keeps the first (pruned) config, deterministically. CPU-mode
timings are wall-clock interpreter numbers anyway, so no tuning is lost.

bfloat16: the interpreter computes on the raw bit patterns of bfloat16 values, so correct
kernels would fail their bfloat16 cases in CPU mode only; interpreter_bfloat16 gives it a
real bfloat16 type (see there).
"""

import sys

from .interpreter_bfloat16 import enable_real_bfloat16


def _equal_timings(kernel_call, quantiles=None, **_ignored):
    if quantiles:
        return [1.0 for _ in quantiles]
    return 1.0


def enable_autotune_without_driver() -> bool:
    """Patches Autotuner.do_bench (a cached_property in Triton 3.6 and 3.9); True if patched."""
    try:
        from triton.runtime.autotuner import Autotuner
    except Exception:
        return False
    if not hasattr(Autotuner, "do_bench"):
        return False
    Autotuner.do_bench = property(lambda self: _equal_timings)
    return True


def enable_interpreter_support() -> str:
    """Every patch above; '' when all took, else what is left as the interpreter has it."""
    problems = []
    if not enable_autotune_without_driver():
        problems.append("autotune left to the interpreter: this Triton has no Autotuner.do_bench")
    bfloat16_problem = enable_real_bfloat16()
    if bfloat16_problem:
        problems.append(bfloat16_problem)
    for problem in problems:  # lands in the job's stderr log, where a surprising fail is looked into
        print(f"keval_runner: {problem}", file=sys.stderr)
    return "; ".join(problems)
