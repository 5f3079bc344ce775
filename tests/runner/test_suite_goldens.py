"""Every golden of suites/keval agrees with its reference on the small cases (CPU interpreter),
and every task.toml has the fields docs/task-format.md requires."""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported anywhere

import ast
import importlib.util
import tomllib
from pathlib import Path

import pytest
import torch
import triton
from torch.overrides import TorchFunctionMode
from torch.utils._device import _device_constructors

import runner_harness  # noqa: F401  (puts runner/ on sys.path)
from keval_runner.interpreter.interpreter_support import enable_interpreter_support

if os.environ.get("TRITON_INTERPRET") == "1":
    enable_interpreter_support()  # the goldens run as the runner's CPU jobs run them

SUITE = Path(__file__).resolve().parents[2] / "suites" / "keval"
TASKS = sorted(p.name for p in SUITE.iterdir() if (p / "task.toml").is_file())
SEEDS = (0, 1)
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2,
          "int8": torch.int8, "int32": torch.int32}
ELEM = {name: dt.itemsize for name, dt in DTYPES.items()}
# the fixed core tasks, held to the suite's own case policy (docs/task-format.md asks less)
CORE = {"vector_add", "relu", "softmax", "layer_norm", "rms_norm", "row_sum", "matmul",
        "bias_gelu", "cross_entropy", "cumsum", "rope", "w8a16_matmul"}

REQUIRED = {"name": str, "version": int, "track": str, "category": str, "difficulty": int,
            "entry": str, "signature": str, "instruction": str, "dtypes": list,
            "flops": str, "bytes": str, "tolerance": dict, "cases": list}
OPTIONAL = {"inplace": bool, "source": str, "notes": str, "compute_rate": str, "held_out": dict, "precision": str}
CASE_KEYS = {"name", "small", "params", "dtypes", "tolerance"}


def _config(task):
    with open(SUITE / task / "task.toml", "rb") as f:
        return tomllib.load(f)


_modules = {}


def _module(task, kind):
    key = (task, kind)
    if key not in _modules:
        path = SUITE / task / f"{kind}.py"
        spec = importlib.util.spec_from_file_location(f"keval_suite_{task}_{kind}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _modules[key] = mod
    return _modules[key]


def _eval_expr(expr, symbols):
    """Evaluate a flops/bytes expression: numbers, known symbols, + - * / ** and parentheses."""
    ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            assert node.id in symbols, f"unknown symbol {node.id!r} in {expr!r}"
            return symbols[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise AssertionError(f"unsupported syntax in {expr!r}: {ast.dump(node)}")

    return ev(ast.parse(expr, mode="eval"))


def _case_dtypes(cfg, case):
    return case.get("dtypes", cfg["dtypes"])


@pytest.mark.parametrize("task", TASKS)
def test_task_toml_is_complete(task):
    cfg = _config(task)
    for key, typ in REQUIRED.items():
        assert key in cfg, f"{task}/task.toml: missing {key}"
        assert isinstance(cfg[key], typ), f"{task}/task.toml: {key} should be {typ.__name__}"
    unknown = set(cfg) - set(REQUIRED) - set(OPTIONAL)
    assert not unknown, f"{task}/task.toml: unknown keys {sorted(unknown)}"
    assert cfg["name"] == task
    assert cfg["version"] >= 1
    assert cfg["track"] in ("ops", "real")
    assert 1 <= cfg["difficulty"] <= 5
    assert cfg["signature"].startswith(cfg["entry"] + "(")
    assert cfg["instruction"].strip() and cfg["entry"] in cfg["instruction"]
    assert cfg["dtypes"] and set(cfg["dtypes"]) <= set(DTYPES)
    for dt in cfg["dtypes"]:
        assert cfg["tolerance"].get(dt) is not None, f"{task}: no tolerance for {dt}"
        _check_tolerance(task, dt, cfg["tolerance"][dt])
    assert set(cfg["tolerance"]) == set(cfg["dtypes"]), f"{task}: tolerance for a dtype not in dtypes"

    cases = cfg["cases"]
    names = [c.get("name") for c in cases]
    assert len(set(names)) == len(names), f"{task}: duplicate case names"
    for case in cases:
        assert set(case) <= CASE_KEYS and {"name", "params"} <= set(case), f"{task}: case keys {sorted(case)}"
        assert set(_case_dtypes(cfg, case)) <= set(cfg["dtypes"])
        for dt, tol in case.get("tolerance", {}).items():  # the case's own, for some of its dtypes
            assert dt in _case_dtypes(cfg, case), f"{task}: case {case['name']}: tolerance for {dt}"
            _check_tolerance(task, dt, tol)
        numeric = {k: v for k, v in case["params"].items() if not isinstance(v, bool)}
        for dt in _case_dtypes(cfg, case):
            symbols = dict(numeric, elem=ELEM[dt])
            assert _eval_expr(cfg["flops"], symbols) > 0
            assert _eval_expr(cfg["bytes"], symbols) > 0
    for key, typ in OPTIONAL.items():
        assert key not in cfg or isinstance(cfg[key], typ), f"{task}/task.toml: {key} should be {typ.__name__}"
    small = [c for c in cases if c.get("small")]
    assert small, f"{task}: no small case (the CPU mode would have nothing to run)"
    if task not in CORE:
        return
    # the core suite's own policy: CPU-sized cases, an outlier case, a benchmark-sized case
    assert len(cases) >= 3 and len(small) >= 2, f"{task}: needs >= 3 cases, >= 2 small"
    assert any(c["params"].get("outliers") for c in small), f"{task}: no small outliers case"
    assert any(not c.get("small") for c in cases), f"{task}: no benchmark-sized case"


class _FactoriesNameTheirDevice(TorchFunctionMode):
    """Stands in for the runner child's torch.set_default_device("cuda") on a machine without a
    GPU: there, a factory call that relies on the default device lands on the GPU, where the CPU
    generator cannot fill it. Only the `torch.empty(0).device` probe may omit device=."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        probe = func is torch.empty and args in ((0,), ([0],))
        if func in _device_constructors() and kwargs.get("device") is None and not probe:
            raise AssertionError(f"torch.{func.__name__} called without device=")
        return func(*args, **kwargs)


@pytest.mark.parametrize("task", TASKS)
def test_make_inputs_draws_on_cpu(task):
    cfg = _config(task)
    ref = _module(task, "reference")
    for case in cfg["cases"]:
        if case.get("small"):
            with _FactoriesNameTheirDevice():
                ref.make_inputs(dict(case["params"], name=case["name"]), DTYPES[cfg["dtypes"][0]], 0)


def _golden_params():
    for task in TASKS:
        cfg = _config(task)
        for case in cfg["cases"]:
            if case.get("small"):
                for dt in _case_dtypes(cfg, case):
                    yield pytest.param(task, case["name"], dt, id=f"{task}-{case['name']}-{dt}")


def _check_tolerance(task, dtype, tol):
    assert set(tol) == {"atol", "rtol", "reason"}, f"{task}: tolerance.{dtype} keys {sorted(tol)}"
    assert isinstance(tol["atol"], (int, float)) and tol["atol"] >= 0
    assert isinstance(tol["rtol"], (int, float)) and tol["rtol"] >= 0
    assert isinstance(tol["reason"], str) and tol["reason"].strip()


def _as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("task,case_name,dtype", list(_golden_params()))
def test_golden_matches_reference(task, case_name, dtype):
    cfg = _config(task)
    case = next(c for c in cfg["cases"] if c["name"] == case_name)
    tol = case.get("tolerance", {}).get(dtype) or cfg["tolerance"][dtype]
    ref, gold = _module(task, "reference"), _module(task, "golden")
    entry = getattr(gold, cfg["entry"])
    # @triton.jit gives a JITFunction, or an InterpretedFunction under TRITON_INTERPRET
    assert any(isinstance(v, triton.runtime.jit.KernelInterface) for v in vars(gold).values()), \
        f"{task}/golden.py defines no @triton.jit kernel"
    for seed in SEEDS:
        case_dict = dict(case["params"], name=case_name)
        args = ref.make_inputs(case_dict, DTYPES[dtype], seed)
        again = ref.make_inputs(case_dict, DTYPES[dtype], seed)
        for a, b in zip(args, again):
            if isinstance(a, torch.Tensor):
                assert torch.equal(a, b), "make_inputs is not deterministic for one seed"
        copy = lambda xs: [x.clone() if isinstance(x, torch.Tensor) else x for x in xs]
        saved = copy(args)
        expected = _as_list(ref.reference(*copy(args)))  # own copies: an inplace golden may write
        got = _as_list(entry(*args))
        if not cfg.get("inplace", False):
            for a, b in zip(args, saved):
                if isinstance(a, torch.Tensor):
                    assert torch.equal(a, b), "the golden modified an input"
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape and g.dtype == e.dtype, f"seed {seed}: {g.shape}/{g.dtype} vs {e.shape}/{e.dtype}"
            g64, e64 = g.double(), e.double()  # float8 has no isnan/isfinite on the CPU
            assert not torch.isnan(e64).any(), f"seed {seed}: the reference itself gives NaN"
            assert torch.isfinite(g64).all() or not torch.isfinite(e64).all(), f"seed {seed}: NaN/Inf in golden"
            bound = tol["atol"] + tol["rtol"] * e64.abs()
            over = (g64 - e64).abs() > bound
            assert not over.any(), (
                f"seed {seed}: {int(over.sum())} of {e.numel()} over tolerance; "
                f"max abs err {(g64 - e64).abs().max().item():.3g} (atol {tol['atol']}, rtol {tol['rtol']})")
