"""How many calls one timed sample holds (the warden's clock).

Each sample is K calls on K fresh sets of their own, back to back behind one gate opening (CUDA)
or one round trip (CPU), and its time is theirs over K. What an opening costs beside its calls
(the GPU switching to the timed process's context and back, the host seeing the gate and `done`)
is calibrated out as a median but varies from opening to opening by tens of µs on an H100
(bench/runs/2026-12-05-session-31.md): K calls share that jitter. Both sides of a case draw the
same layout, so they get the same K and A/A stays fair by construction.
"""

import os

from ..protocol.request_check import timing_setting

ENV_CALLS = "KEVAL_TIMED_CALLS"  # a fixed count, for side-by-side benchmarks


def calls_per_sample(set_bytes: int, settings: dict) -> int:
    """K for sets of `set_bytes` (a call's inputs and outputs): at most `timed_calls_max`, and
    as many as fit `timed_calls_bytes` beside the first set."""
    fixed = os.environ.get(ENV_CALLS)
    if fixed:
        try:
            calls = int(fixed)
        except ValueError:
            raise ValueError(f"{ENV_CALLS}={fixed!r}: not a whole number of calls") from None
        if calls < 1:
            raise ValueError(f"{ENV_CALLS}={fixed!r}: at least one call a sample")
        return calls
    most = max(1, int(timing_setting(settings, "timed_calls_max")))
    extra = float(timing_setting(settings, "timed_calls_bytes"))
    return max(1, min(most, 1 + int(extra // max(1, set_bytes))))
