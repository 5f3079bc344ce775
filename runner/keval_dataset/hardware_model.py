"""A model of the H200 running a row's launches, without a GPU: the time each launch would take
from the bytes and FLOPs of its problem (the task's `flops` and `bytes`), the grid, the tile and
what the compiler made of the main kernel (registers, shared memory: the programs an SM holds).

Per row, with P the main launch's programs, r the programs an SM holds at once (compiled_features
.resident_programs, else a guess from the tile's values a thread), S = 132 SMs:

- waves = ceil(P / (S r)), and the last wave's share of a full one (the tail);
- bytes in flight: each resident program has one tile of each tensor it loads outstanding (times
  num_stages - 1 where it loops and pipelines), so the memory system sees at most
  min(P, S r) x that; by Little's law bandwidth is at most that over the DRAM latency, and at
  most a few times an SM's fair share on each SM that has work;
- memory time = waves x (a wave's bytes) / that bandwidth; compute time = the problem's FLOPs
  over the peak for the dtype (tensor cores where the program has tl.dot), scaled by the SMs
  that have work and the tail; issue time = warp-instructions (PTX instructions, times the loop's
  trips: a program's bytes over a tile's) over 4 a cycle per SM with work, slowed where an SM
  holds too few warps to hide latency; spills as extra local-memory traffic;
- the estimate = launches x launch overhead + max(memory, compute, issue) + spills.

The constants are datasheet figures (4.8 TB/s, 989/494/67 TFLOP/s, 1.98 GHz) and round guesses
(3 us a launch); two, LATENCY_S and WARPS_TO_HIDE, were picked from a few values each by the
estimate's own within-problem Spearman on the train split (bench/runs/2026-12-05-predictor-4.md):
the latency, 2.5 us, is longer than a DRAM round trip because it also stands for what the model
misses of a program's bytes in flight. Each row's estimate is also taken against its golden's on
the same case and dtype; feature_table.py adds its rank and its distance from the problem's median.
"""

import math

from .compiled_features import SM, resident_programs
from .compile_table import unit
from .launch_features import ELEM_BYTES, _tile, main_launch

NAN = float("nan")
BANDWIDTH = 4.8e12  # bytes/s, HBM3e
LATENCY_S = 2.5e-6  # the time a byte in flight is outstanding (see below)
SM_SHARE = 3.0  # an SM draws at most this many times its fair share of the bandwidth
CLOCK_HZ = 1.98e9
ISSUE_PER_CLOCK = 4  # warp-instructions an SM issues a cycle (4 schedulers)
WARPS_TO_HIDE = 64  # warps an SM needs resident to keep issuing through latency
LAUNCH_S = 3e-6
PEAK = {"tensor16": 989e12, "tensor8": 1979e12, "tf32": 494e12, "simt32": 67e12, "simt16": 134e12}
NAMES = ("time_log2", "memory_log2", "compute_log2", "issue_log2", "spill_log2", "bandwidth_fraction",
         "inflight_log2", "waves", "tail_efficiency", "active_sm_fraction", "trips_log2", "bound",
         "over_roofline_log2")


def _log2(value: float) -> float:
    return math.log2(value) if value and value > 0 else NAN


def _elem_bytes(launch: dict) -> int:
    sizes = [ELEM_BYTES[d] for d in launch.get("arg_dtypes", []) if d in ELEM_BYTES]
    return max(sizes, default=4)


def guessed_resident(launch: dict) -> int:
    """Programs an SM holds when nothing was compiled: registers from the tile's 32-bit values a
    thread (about one register each, plus 32), no shared memory."""
    warps = launch.get("num_warps", 4)
    values = _tile(launch) * _elem_bytes(launch) / 4 / (32 * warps)
    return resident_programs(min(255.0, 32.0 + values), warps, 0.0)


def estimate(launches: list, compiled: dict, work: dict) -> dict:
    """The model's figures for one row (all NaN without launches or without the problem's bytes).
    `work`: the problem's `flops`, `bytes` (None when unknown), `dots` (tl.dot in the program)
    and `elem_bytes`."""
    out = {name: NAN for name in NAMES}
    moved = work.get("bytes")
    if not launches or not moved:
        return out
    main = main_launch(launches)
    programs = max(1, math.prod(main.get("grid") or [1]))
    warps = main.get("num_warps", 4)
    stages = main.get("num_stages", 3)
    info = compiled.get(unit(main)) or {}
    if "registers" in info:
        resident = max(1, resident_programs(info["registers"], warps, info["shared_bytes"]))
        loads = max(1.0, info.get("ttgir_loads", 1.0))
        loops = info.get("ttgir_loops", 0.0) > 0
        instructions = info.get("ptx_instructions", NAN)
        spill_ops = info.get("spill_stores", 0.0) + info.get("spill_loads", 0.0)
    else:
        resident = max(1, guessed_resident(main))
        loads, loops, instructions, spill_ops = max(1.0, work.get("loads", 1.0)), work.get("loops", 0.0) > 0, NAN, 0.0
    slots = SM["count"] * resident
    waves = math.ceil(programs / slots)
    concurrent = min(programs, slots)
    active = min(SM["count"], programs)
    per_program = moved / programs
    tile_bytes = _tile(main) * _elem_bytes(main) * loads
    trips = max(1.0, per_program / tile_bytes) if loops else 1.0
    inflight_program = min(per_program, tile_bytes * (max(1, stages - 1) if loops else 1))
    inflight = concurrent * inflight_program
    bandwidth = min(BANDWIDTH, inflight / LATENCY_S, active * SM_SHARE * BANDWIDTH / SM["count"])
    memory_s = waves * concurrent * per_program / bandwidth
    tail = programs / (waves * slots)
    flops = work.get("flops") or 0.0
    sixteen = work.get("elem_bytes", 4) <= 2
    if work.get("dots"):
        peak = PEAK["tensor8" if work.get("elem_bytes") == 1 else "tensor16" if sixteen else "tf32"]
    else:
        peak = PEAK["simt16" if sixteen else "simt32"]
    compute_s = waves * concurrent * (flops / programs) / (peak * active / SM["count"])
    warps_per_sm = min(resident, math.ceil(programs / SM["count"])) * warps
    issue_s = NAN
    if not math.isnan(instructions):
        rate = active * ISSUE_PER_CLOCK * CLOCK_HZ * min(1.0, warps_per_sm / WARPS_TO_HIDE)
        issue_s = programs * warps * instructions * trips / rate
    spill_s = programs * warps * 32 * spill_ops * trips * 4 / BANDWIDTH
    terms = [memory_s, compute_s] + ([issue_s] if not math.isnan(issue_s) else [])
    time_s = len(launches) * LAUNCH_S + max(terms) + spill_s
    roofline_s = max(moved / BANDWIDTH, flops / peak)
    out.update({
        "time_log2": _log2(time_s * 1e6), "memory_log2": _log2(memory_s * 1e6), "compute_log2": _log2(compute_s * 1e6),
        "issue_log2": _log2(issue_s * 1e6) if not math.isnan(issue_s) else NAN,
        "spill_log2": math.log2(1 + spill_s * 1e6), "bandwidth_fraction": bandwidth / BANDWIDTH,
        "inflight_log2": _log2(inflight), "waves": float(waves), "tail_efficiency": tail,
        "active_sm_fraction": active / SM["count"], "trips_log2": math.log2(trips),
        "bound": float(terms.index(max(terms))), "over_roofline_log2": _log2(time_s / roofline_s),
    })
    return out


def hardware_features(launches: list, golden_launches, compiled: dict, work: dict) -> dict:
    """`hw_<name>` of estimate() for the row, and `vs_golden_hw_time_log2`: its estimate over its
    golden's (log2)."""
    mine = estimate(launches, compiled, work)
    out = {f"hw_{name}": value for name, value in mine.items()}
    golden = estimate(golden_launches, compiled, work) if golden_launches else {"time_log2": NAN}
    out["vs_golden_hw_time_log2"] = mine["time_log2"] - golden["time_log2"]
    return out


def names() -> list:
    return sorted(hardware_features([], None, {}, {}))
