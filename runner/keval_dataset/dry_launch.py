"""A program's kernel launches found without a GPU: its host code run on fake tensors.

The task's `make_inputs` draws the case's inputs under torch's FakeTensorMode (shapes, dtypes and
strides, no storage), the program's entry is called on them, and every `kernel[grid](...)` is
recorded instead of compiled or launched: the grid as evaluated, num_warps, num_stages, the
constexpr arguments and each argument's dtype. These are the values the GPU would have been
given, which the source text alone does not show (`BLOCK = triton.next_power_of_2(cols)`,
`warps = 4 if BLOCK <= 1024 else 8`). Host code that needs real data (`.item()`, a CPU sync on
a result) fails here; the row then has no launches and says why.

The program runs in this process: call it only on code you would import (keval's own variants),
or in a child process (dry_launch_batch).
"""

import contextlib
import hashlib
import importlib.util
import linecache
import math
import os
import sys
import types

from .task_sources import KevalTask

DEFAULT_WARPS = 4
DEFAULT_STAGES = 3  # Triton's CUDA defaults


class Launch:
    def __init__(self, kernel: str, grid: tuple, num_warps: int, num_stages: int, constexprs: dict,
                 arg_dtypes: list, configs: int = 0, source_hash: str = ""):
        self.kernel, self.grid, self.num_warps, self.num_stages = kernel, grid, num_warps, num_stages
        self.constexprs, self.arg_dtypes, self.configs = constexprs, arg_dtypes, configs
        self.source_hash = source_hash

    @property
    def programs(self) -> int:
        return math.prod(self.grid)

    @property
    def block_elements(self) -> int:
        """The product of the power-of-two integer constexprs: the tile one program holds."""
        return math.prod(v for v in self.constexprs.values()
                         if isinstance(v, int) and not isinstance(v, bool) and v > 1 and v & (v - 1) == 0) or 1

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "grid": list(self.grid), "num_warps": self.num_warps,
                "num_stages": self.num_stages, "constexprs": self.constexprs,
                "arg_dtypes": self.arg_dtypes, "configs": self.configs, "source_hash": self.source_hash}


def _grid(grid, meta: dict) -> tuple:
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, int):
        grid = (grid,)
    values = [int(g) for g in grid] + [1, 1]
    return tuple(max(0, v) for v in values[:3])


def _dtype(value) -> str:
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return str(dtype).replace("torch.", "")
    if isinstance(value, bool):
        return "i1"
    return {int: "i32", float: "fp32"}.get(type(value), type(value).__name__)


def _record(kernel, grid, args, kwargs, found: list):
    from triton.runtime.autotuner import Autotuner, Heuristics

    configs = []
    fn = kernel
    while isinstance(fn, (Autotuner, Heuristics)):
        if isinstance(fn, Autotuner):
            configs = list(fn.configs)
        else:  # heuristics: values computed from the arguments
            named = dict(zip(fn.arg_names, args), **kwargs)
            for name, rule in fn.values.items():
                kwargs.setdefault(name, rule(named))
        fn = fn.fn
    names = [p.name for p in fn.params]
    named = dict(zip(names, args), **kwargs)
    config_kwargs = dict(configs[0].all_kwargs()) if configs else {}  # the first config as the pick
    for key in ("num_warps", "num_stages"):
        config_kwargs.setdefault(key, None)
    meta = dict(named, **{k: v for k, v in config_kwargs.items() if v is not None})
    constexprs = {p.name: meta.get(p.name, p.default if p._param.default is not p._param.empty else None)
                  for p in fn.params if p.is_constexpr}
    constexprs = {k: v for k, v in constexprs.items() if isinstance(v, (int, float, bool, str))}
    found.append(Launch(
        fn.__name__, _grid(grid, meta),
        int(meta.get("num_warps") or DEFAULT_WARPS), int(meta.get("num_stages") or DEFAULT_STAGES),
        constexprs, [_dtype(named.get(p.name)) for p in fn.params if not p.is_constexpr], len(configs),
        hashlib.sha256(fn.src.encode()).hexdigest()[:16]))


@contextlib.contextmanager
def recording(found: list):
    """Every kernel[grid](...) inside appends a Launch to `found` and runs nothing."""
    from triton.runtime.jit import KernelInterface

    original = KernelInterface.__getitem__

    def getitem(self, grid):
        return lambda *args, **kwargs: _record(self, grid, args, dict(kwargs), found)

    KernelInterface.__getitem__ = getitem
    try:
        yield found
    finally:
        KernelInterface.__getitem__ = original


def _module(name: str, source: str, filename: str):
    """`source` as a module; triton.jit reads its functions' source back through linecache."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def _load_file(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TaskInputs:
    """A keval task folder's entry and fake inputs per (case, dtype)."""

    def __init__(self, task_dir: str):
        task = KevalTask(task_dir)
        self.toml, self.entry = task.toml, task.entry
        self.reference = _load_file(f"_keval_ref_{os.path.basename(task_dir)}", os.path.join(task_dir, "reference.py"))

    def case_params(self, case: str) -> dict:
        for item in self.toml.get("cases", []):
            if item.get("name") == case:
                return dict(item.get("params", {}))
        raise KeyError(case)


def launches(code: str, task: TaskInputs, case: str, dtype: str, filename: str = "<candidate>") -> tuple:
    """(launches, None) or ([], why) for one program on one case and dtype."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    found = []
    try:
        module = _module("_keval_dry_candidate", code, filename)
        entry = getattr(module, task.entry, None) or getattr(module, "kernel_function", None)
        if entry is None:
            return [], "no_entry"
        with FakeTensorMode(allow_non_fake_inputs=True):
            inputs = task.reference.make_inputs(task.case_params(case), getattr(torch, dtype), 0)
            inputs = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
            with recording(found):
                entry(*inputs)
    except Exception as error:  # noqa: BLE001 - a program that cannot be dry-run is a value
        return found, f"{type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"
    return found, None
