"""Features of a row's compiled kernels (compile_table.py), alone and against its task's golden.

Of the main launch (launch_features.main_launch): ptxas's registers, spills and stack, shared
memory, the TTGIR and PTX counts, and from them the programs an SM holds at once (registers,
shared memory, warps: an H200 SM has 64K registers, 228 KiB of shared memory, 64 warps and 32
programs), the waves that makes, and the static instruction count times programs. Only the main
launch is compiled (about a second each, minutes for the largest tiles). A compilation that
passed its deadline or was not tried (compile_table.py: the largest tiles) is `compile_timeout`
1 with the rest NaN; a row without compiled launches is all NaN.
"""

import math

from .launch_features import main_launch

NAN = float("nan")
SM = {"registers": 65536, "shared": 228 * 1024, "warps": 64, "programs": 32, "count": 132}
KEPT = ("registers", "spill_stores", "spill_loads", "stack", "shared_bytes", "ttgir_loads", "ttgir_dots",
        "ttgir_async_copies", "ttgir_local_allocs", "ttgir_layout_converts", "ttgir_reduces", "ttgir_loops",
        "ttgir_ops", "ptx_instructions", "ptx_global_loads", "ptx_shared", "ptx_mma", "ptx_bar")
DERIVED = ("resident_programs", "occupancy", "compiled_waves_log2", "spill_bytes_log2", "work_instructions_log2",
           "compile_timeout")
RELATIVE = ("registers", "occupancy", "compiled_waves_log2", "spill_bytes_log2", "ptx_instructions_log2")


def _log2(value: float) -> float:
    return math.log2(value) if value and value > 0 else 0.0


def resident_programs(registers: float, warps: int, shared: float) -> int:
    """Programs one SM holds at once (ptxas allocates registers per warp in units of 256)."""
    per_warp = math.ceil(max(registers, 1) * 32 / 256) * 256
    by_registers = SM["registers"] // (per_warp * warps)
    by_shared = SM["shared"] // shared if shared > 0 else SM["programs"]
    return int(max(0, min(by_registers, by_shared, SM["warps"] // warps, SM["programs"])))


def own(launches: list, compiled: dict) -> dict:
    out = {f"compiled_{name}": NAN for name in KEPT + DERIVED}
    if not launches:
        return out
    from .compile_table import unit

    main = main_launch(launches)
    mine = compiled.get(unit(main)) or {}
    if mine.get("why") in ("timeout", "too_large"):
        out["compiled_compile_timeout"] = 1.0
        return out
    if "registers" not in mine:
        return out
    out.update({f"compiled_{name}": float(mine[name]) for name in KEPT})
    programs = max(1, math.prod(main.get("grid") or [1]))
    resident = resident_programs(mine["registers"], main.get("num_warps", 4), mine["shared_bytes"])
    out["compiled_resident_programs"] = float(resident)
    out["compiled_occupancy"] = resident * main.get("num_warps", 4) / SM["warps"]
    out["compiled_compiled_waves_log2"] = _log2(programs / (SM["count"] * max(resident, 1)))
    out["compiled_spill_bytes_log2"] = _log2(1 + mine["spill_stores"] + mine["spill_loads"])
    out["compiled_work_instructions_log2"] = _log2(programs * mine["ptx_instructions"])
    out["compiled_compile_timeout"] = 0.0
    return out


def relative(mine: dict, golden: dict) -> dict:
    out = {}
    for name in RELATIVE:
        key = "compiled_ptx_instructions" if name == "ptx_instructions_log2" else f"compiled_{name}"
        a, b = mine.get(key, NAN), (golden or {}).get(key, NAN)
        if name == "ptx_instructions_log2":
            a, b = (_log2(a) if not math.isnan(a) else NAN), (_log2(b) if not math.isnan(b) else NAN)
        out[f"vs_golden_compiled_{name}"] = a - b if not (math.isnan(a) or math.isnan(b)) else NAN
    return out


def compiled_features(launches: list, golden_launches, compiled: dict) -> dict:
    mine = own(launches, compiled)
    out = dict(mine)
    out.update(relative(mine, own(golden_launches, compiled) if golden_launches else None))
    return out


def names() -> list:
    return sorted(compiled_features([], None, {}))
