"""Features of a row's dry launches (dry_launch.py), alone and against its task's golden.

Per row: the launch that covers the most elements (programs x tile) is the main one; its grid
against the H200's 132 SMs (waves, the last wave's fill), its tile, warps and stages, and the
tile's elements per thread (a register-pressure proxy: above ~64 float32 values a thread spills
or runs few programs per SM); over all launches, their count and the most and fewest programs.
Against the golden on the same case and dtype: the signed and absolute log2 ratios of the same
quantities (the sweep's variants move away from an expert's choice; how far, and which way,
matters more than the values themselves). Missing launches (a host code that needs real data)
are NaN, which the tree models take as unknown and ridge as the train mean.
"""

import math

SMS = 132  # H200
NAN = float("nan")
OWN = ("launches", "programs_log2", "tile_log2", "warps_log2", "stages", "threads_log2",
       "elems_per_thread_log2", "waves_log2", "last_wave_fill",
       "min_programs_log2", "max_programs_log2", "sum_programs_log2", "max_elems_per_thread_log2",
       "tile_bytes_per_thread_log2", "grid_dims", "autotune_configs")
RELATIVE = ("programs_log2", "tile_log2", "warps_log2", "stages", "elems_per_thread_log2", "waves_log2",
            "max_elems_per_thread_log2", "sum_programs_log2", "launches")
ELEM_BYTES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2, "int8": 1, "uint8": 1, "int64": 8, "int32": 4}


def _log2(value: float) -> float:
    return math.log2(value) if value and value > 0 else 0.0


NOT_TILES = ("GROUP", "CHUNK", "SPLIT", "NUM")  # constexprs that count or swizzle, not a tile's side


def tile_sides(launch: dict) -> list:
    """The power-of-two block constexprs, largest first."""
    return sorted((v for k, v in (launch.get("constexprs") or {}).items()
                   if isinstance(v, int) and not isinstance(v, bool) and v > 1 and v & (v - 1) == 0
                   and not any(word in k.upper() for word in NOT_TILES)), reverse=True)


def _tile(launch: dict) -> int:
    """The elements one program covers: the product of its block sides (a matmul's M x N x K)."""
    return math.prod(tile_sides(launch)) or 1


def _programs(launch: dict) -> int:
    return max(1, math.prod(launch.get("grid") or [1]))


def _elem_bytes(launch: dict) -> int:
    sizes = [ELEM_BYTES[d] for d in launch.get("arg_dtypes", []) if d in ELEM_BYTES]
    return max(sizes, default=4)


def main_launch(launches: list) -> dict:
    """The launch covering the most elements (programs x tile); the first of equals."""
    return max(launches, key=lambda launch: (_programs(launch) * _tile(launch), _tile(launch)))


def own(launches: list) -> dict:
    """The row's own launch features (all NaN without launches)."""
    if not launches:
        return {name: NAN for name in OWN}
    main = main_launch(launches)
    programs, tile = _programs(main), _tile(main)
    warps, threads = main.get("num_warps", 4), 32 * main.get("num_warps", 4)
    per_thread = [_tile(launch) / (32 * launch.get("num_warps", 4)) for launch in launches]
    return {
        "launches": float(len(launches)),
        "programs_log2": _log2(programs),
        "tile_log2": _log2(tile),
        "warps_log2": _log2(warps),
        "stages": float(main.get("num_stages", 3)),
        "threads_log2": _log2(threads),
        "elems_per_thread_log2": _log2(tile / threads),
        "waves_log2": _log2(programs / SMS),
        "last_wave_fill": (programs % SMS) / SMS if programs % SMS else 1.0,
        "min_programs_log2": _log2(min(_programs(launch) for launch in launches)),
        "max_programs_log2": _log2(max(_programs(launch) for launch in launches)),
        "sum_programs_log2": _log2(sum(_programs(launch) for launch in launches)),
        "max_elems_per_thread_log2": _log2(max(per_thread)),
        "tile_bytes_per_thread_log2": _log2(tile * _elem_bytes(main) / threads),
        "grid_dims": float(sum(1 for g in main.get("grid", []) if g > 1)),
        "autotune_configs": float(max(launch.get("configs", 0) for launch in launches)),
    }


def relative(mine: dict, golden: dict) -> dict:
    """Signed and absolute differences of `mine` from the golden's own() (NaN where either is)."""
    out = {}
    for name in RELATIVE:
        a, b = mine.get(name, NAN), golden.get(name, NAN) if golden else NAN
        difference = a - b if not (math.isnan(a) or math.isnan(b)) else NAN
        out[f"vs_golden_{name}"] = difference
        out[f"vs_golden_abs_{name}"] = abs(difference)
    changed = [out[f"vs_golden_abs_{n}"] for n in ("programs_log2", "tile_log2", "warps_log2", "stages")]
    out["vs_golden_moves"] = NAN if any(math.isnan(c) for c in changed) else float(sum(c > 0 for c in changed))
    out["vs_golden_distance"] = NAN if any(math.isnan(c) for c in changed) else float(sum(changed))
    return out


def launch_features(launches: list, golden_launches) -> dict:
    mine = own(launches)
    out = {f"launch_{name}": value for name, value in mine.items()}
    out.update(relative(mine, own(golden_launches) if golden_launches is not None else None))
    return out


def names() -> list:
    return sorted(launch_features([], None))
