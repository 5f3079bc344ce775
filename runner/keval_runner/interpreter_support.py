"""Makes common Triton features usable under the CPU interpreter (TRITON_INTERPRET=1).

triton.autotune benchmarks its configs with the active GPU driver's benchmarker, and the
interpreter has no driver ("0 active drivers"), so any multi-config autotuned kernel would
fail in CPU mode only. In CPU mode the benchmark is replaced by equal timings for every
config: the autotuner then keeps the first (pruned) config, deterministically. CPU-mode
timings are wall-clock interpreter numbers anyway, so no tuning is lost.
"""


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
