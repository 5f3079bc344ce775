"""The compiled-kernel features (compiled_kernel.py) of many dry launches, one compilation per
distinct kernel (its source, constexprs, warps, stages and argument dtypes), in child processes
(child_batch.py) with a deadline each, cached in a JSON-lines file.

A compilation that passes its deadline is an answer too (`why: timeout`): Triton and ptxas take
minutes on the sweep's largest tiles, which are the ones that spill hardest. Launches whose tile
needs at least MAX_VALUES_PER_THREAD values a thread (registers hold at most 255) are not
compiled at all (`why: too_large`): every one tried passed the deadline. Each line of the cache
names the Triton that compiled it (compile_stamp.py).
"""

import hashlib
import json
import sys
import tempfile

from . import child_batch, compile_stamp
from .launch_features import main_launch, tile_sides
from .launch_table import key as launch_key
from .makora_form import candidate_code

UNIT_SECONDS = 10
MAX_VALUES_PER_THREAD = 512


def values_per_thread(launch: dict) -> float:
    """The largest 2-D tile a program holds (the product of its two largest power-of-two block
    constexprs: a matmul's M x N, K x N or M x K) over its threads."""
    sides = tile_sides(launch)
    tile = (sides[0] if sides else 1) * (sides[1] if len(sides) > 1 else 1)
    return tile / (32 * launch.get("num_warps", 4))


def unit(launch: dict) -> str:
    text = json.dumps([launch.get("source_hash"), launch.get("kernel"), launch.get("constexprs"),
                       launch.get("num_warps"), launch.get("num_stages"), launch.get("arg_dtypes")], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def programs(rows: list, launches: dict) -> list:
    """(code, [its main launch]) of each row whose launches were found (launch_table.table's
    answer): the kernels whose compilation the rows' compiled features read."""
    out = []
    for row in rows:
        found = (launches.get(launch_key(row)) or {}).get("launches")
        if found:
            out.append((candidate_code(row.get("x") or ""), [main_launch(found)]))
    return out


def jobs(programs: list) -> tuple:
    """({unit: job} to compile, {unit: answer} of the launches not tried) for `programs`."""
    todo, skipped = {}, {}
    for code, launches in programs:
        for launch in launches:
            if values_per_thread(launch) >= MAX_VALUES_PER_THREAD:
                skipped[unit(launch)] = {"key": unit(launch), "why": "too_large"}
            else:
                todo.setdefault(unit(launch), {"key": unit(launch), "code": code, "launch": launch})
    return todo, skipped


def table(programs: list, cache: str = None, seconds: float = UNIT_SECONDS, workers: int = 1,
          deadline=None) -> dict:
    """programs: (code, [launch dicts]); -> unit(launch) -> features or {"why": ...}.

    What the cache lacks is compiled and added to it, unless it was compiled by another Triton
    (compile_stamp.py): then it is read as it is, and what it lacks reads as not compiled."""
    todo, skipped = jobs(programs)
    cached = child_batch.read_cache(cache)
    theirs, mine = compile_stamp.of_cache(cached, cache), compile_stamp.current()
    missing = [job for key, job in todo.items() if key not in cached]
    if theirs not in (None, mine):
        print(f"keval_dataset: reading kernels compiled by {compile_stamp.describe(theirs)} from {cache} (this is "
              f"{compile_stamp.describe(mine)}); {len(missing)} not in it read as not compiled", file=sys.stderr)
        return dict(skipped, **cached)
    with tempfile.TemporaryDirectory() as triton_cache:
        env = {"TRITON_ALWAYS_COMPILE": "1", "TRITON_CACHE_DIR": triton_cache, "TRITON_DEFAULT_FP_FUSION": "1"}
        found = child_batch.run(missing, "keval_dataset.compile_table", seconds, cache, env, workers=workers,
                                deadline=deadline, stamp=mine)
    return dict(skipped, **found)


_modules = {}


def answer(job: dict) -> dict:
    from .compiled_kernel import compile_launch
    from .dry_launch import _module

    code_key = hashlib.sha256(job["code"].encode()).hexdigest()
    if code_key not in _modules:
        _modules.clear()  # one program at a time: a module holds its kernels' compiled state
        _modules[code_key] = _module(f"_keval_compile_{code_key[:12]}", job["code"], f"<candidate {code_key[:12]}>")
    kernel = getattr(_modules[code_key], job["launch"]["kernel"], None)
    if kernel is None:
        return {"why": "kernel_not_found"}
    return dict(compile_launch(kernel, job["launch"]), why=None)


if __name__ == "__main__":
    child_batch.serve(sys.argv[1], sys.argv[2], answer)
