"""The predictor's model of the H200 (hardware_model.py) on launches written out by hand: a
copy with enough bytes in flight runs at the bandwidth, one with too little in flight or a spilling kernel is
slower, and a row it cannot model is unknown."""
import math

import pytest

from keval_dataset.compile_table import unit
from keval_dataset.hardware_model import BANDWIDTH, LAUNCH_S, estimate, hardware_features

N = 2 ** 27  # vector_add in float16: two reads and a write of N values
WORK = {"flops": float(N), "bytes": 3.0 * N * 2, "dots": 0.0, "elem_bytes": 2.0, "loads": 2.0, "loops": 0.0}


def launch(block: int, warps: int) -> list:
    return [{"kernel": "_add_kernel", "grid": [N // block, 1, 1], "num_warps": warps, "num_stages": 3,
             "constexprs": {"BLOCK": block}, "arg_dtypes": ["float16", "float16", "float16", "i32"],
             "configs": 0, "source_hash": "x"}]


def compiled(launches: list, registers: float, spills: float = 0.0) -> dict:
    return {unit(launches[0]): {"registers": registers, "shared_bytes": 0.0, "ttgir_loads": 2.0, "ttgir_loops": 0.0,
                                "ptx_instructions": 60.0, "spill_stores": spills, "spill_loads": spills}}


@pytest.mark.timeout(60)
def test_a_copy_with_enough_in_flight_runs_at_the_bandwidth():
    wide = launch(4096, 4)  # 16 programs an SM, each 16 KiB of loads outstanding
    figures = estimate(wide, compiled(wide, 32), WORK)
    programs, slots = N // 4096, 132 * 16
    waves = math.ceil(programs / slots)  # 16, the last one 0.52 full: it costs a whole wave
    expected_us = (waves * slots * WORK["bytes"] / programs / BANDWIDTH + LAUNCH_S) * 1e6
    assert 2 ** figures["time_log2"] == pytest.approx(expected_us, rel=1e-6)
    assert figures["waves"] == waves and figures["tail_efficiency"] == pytest.approx(programs / (waves * slots))
    assert figures["bandwidth_fraction"] == 1.0 and figures["bound"] == 0.0  # memory


@pytest.mark.timeout(60)
def test_too_little_in_flight_or_a_spilling_kernel_is_slower():
    golden = launch(2048, 8)
    tiny = launch(64, 4)  # 2^21 programs of 64 values: 16 programs an SM hold 4 KiB
    base = estimate(golden, compiled(golden, 32), WORK)["time_log2"]
    slow = estimate(tiny, compiled(tiny, 16), WORK)
    assert slow["bandwidth_fraction"] < 0.5 and slow["time_log2"] > base + 1
    full = estimate(golden, compiled(golden, 255), WORK)["time_log2"]  # as many registers, no spills
    spilling = estimate(golden, compiled(golden, 255, spills=40.0), WORK)["time_log2"]
    assert full > base and spilling > full + 0.5
    against = hardware_features(tiny, golden, {**compiled(tiny, 16), **compiled(golden, 32)}, WORK)
    assert against["vs_golden_hw_time_log2"] == pytest.approx(slow["time_log2"] - base)


@pytest.mark.timeout(60)
def test_without_launches_or_the_problems_bytes_the_model_is_unknown():
    assert all(math.isnan(v) for v in hardware_features([], None, {}, WORK).values())
    assert all(math.isnan(v) for v in estimate(launch(2048, 8), {}, dict(WORK, bytes=None)).values())
    guessed = estimate(launch(2048, 8), {}, WORK)  # nothing compiled: residency from the tile
    assert not math.isnan(guessed["time_log2"]) and math.isnan(guessed["issue_log2"])
