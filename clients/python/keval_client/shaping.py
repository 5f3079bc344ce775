"""Rewards from a judged result, by name. The facts (verdict, speedup and its interval, hack
flags) stay in the result; a shaping only maps them to one number, so a trainer can change its
shaping without judging anything again.

  binary        1 for pass, else 0.
  ladder        KernelGYM's order, broken < runs but wrong < correct < faster: a hack -1, a
                submission that does not build or define its entry -0.5, another failure 0,
                a pass 0.5, plus 0.5 * min(log2(speedup), 2) when faster (at most 1.5).
  speedup_low   a pass's lower 95% bound of its speedup (the value without an interval), capped
                at 4; a pass not timed 1; a failure 0. Noise earns nothing: a candidate must be
                faster at the interval's low end.
  server        the reward keval serve computed under its --reward-config; KevalError when the
                server has none.
"""
import math

from .errors import KevalError

HACK_VERDICTS = {"tampering", "input_mutated", "out_of_bounds", "no_kernel", "library_fallback"}
BROKEN_VERDICTS = {"bad_submission", "missing_entry", "compile_error"}
SPEEDUP_CAP = 4.0


def binary(result) -> float:
    return 1.0 if result.verdict == "pass" else 0.0


def ladder(result) -> float:
    if result.verdict in HACK_VERDICTS or any(f.startswith("verdict:") for f in result.hack_flags):
        return -1.0
    if result.verdict in BROKEN_VERDICTS:
        return -0.5
    if result.verdict != "pass":
        return 0.0
    bonus = 0.0
    if result.speedup is not None and result.speedup.value > 1.0:
        bonus = 0.5 * min(math.log2(result.speedup.value), 2.0)
    return 0.5 + bonus


def speedup_low(result) -> float:
    if result.verdict != "pass":
        return 0.0
    if result.speedup is None:
        return 1.0
    low = result.speedup.low if result.speedup.low is not None else result.speedup.value
    return min(low, SPEEDUP_CAP)


def server(result) -> float:
    if result.server_reward is None:
        raise KevalError(f"job {result.job_id}: the server has no --reward-config, so no \"server\" reward",
                         field="shaping")
    return float(result.server_reward)


SHAPINGS = {"binary": binary, "ladder": ladder, "speedup_low": speedup_low, "server": server}


def reward_of(result, shaping: str) -> float:
    if not result.finished or result.state != "done":
        raise KevalError(f"job {result.job_id} is {result.state}: no reward", field="state")
    try:
        return SHAPINGS[shaping](result)
    except KeyError:
        raise KevalError(f"unknown shaping \"{shaping}\" (known: {', '.join(SHAPINGS)})", field="shaping") from None
