"""TritonBench glue that runs inside job children (embedded verbatim, never imported there).

The adapter copies this file's text into every generated `reference.py` and
`submission_suffix.py`, so a sandboxed child needs nothing but the task folder (the runner's
own folder may not be readable by the job's uid). In a submission the names land in the
submission's own module: all of them start with `_keval_tb_` to stay out of its way.

What both sides share, so the reference and the submission run the test identically:
- seeding (`random`, `numpy`, `torch` with `seed`) right before the test function is called;
- grad enabled (the runner calls under `torch.no_grad()`; TritonBench tests may call backward);
- `torch.empty`-family results zero-filled during the test (not during timed performance calls):
  tests return buffers their kernels write only in part (in autograd's backward, which the torch
  function mode does not reach, deterministic mode fills them with NaN instead);
- the test part's imports made available to the code under test (same file in TritonBench);
- CPU mode (TRITON_INTERPRET=1): TritonBench tests hard-code `device='cuda'`; the torch function
  mode maps CUDA placements to the CPU, `torch.cuda.device`/`_DeviceGuard` become no-op contexts
  and `Tensor.is_cuda` reads true, for the duration of the call (restored afterwards). CUDA-only
  calls it cannot reach (`torch.cuda.synchronize()`, `.cuda()` at import time, device-type checks)
  still fail on the CPU: such tasks need the GPU;
- flattening of the test's returned value into a list of tensors (see `_keval_tb_flatten`).
"""

import contextlib as _keval_tb_contextlib
import linecache as _keval_tb_linecache
import os as _keval_tb_os
import random as _keval_tb_random

import torch as _keval_tb_torch
from torch.overrides import TorchFunctionMode as _KevalTbTorchFunctionMode


def _keval_tb_interpreting():
    return _keval_tb_os.environ.get("TRITON_INTERPRET") == "1"


def _keval_tb_seed(seed):
    seed = int(seed)
    _keval_tb_random.seed(seed)
    try:
        import numpy

        numpy.random.seed(seed % (2**32))
    except Exception:
        pass
    # torch.manual_seed for the CPU and CUDA generators only: it also queues the seed, with a
    # formatted stack, for each backend not started (XPU, MTIA), 0.4 ms in every timed call
    torch = _keval_tb_torch
    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_initialized():
        for generator in torch.cuda.default_generators:
            generator.manual_seed(seed)
    elif torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)  # applied when CUDA starts


def _keval_tb_is_cuda(device):
    if isinstance(device, _keval_tb_torch.device):
        return device.type == "cuda"
    if isinstance(device, str):
        return device == "cuda" or device.startswith("cuda:")
    return False


_KEVAL_TB_EMPTIES = {_keval_tb_torch.empty, _keval_tb_torch.empty_like, _keval_tb_torch.empty_strided,
                     _keval_tb_torch.Tensor.new_empty}


class _KevalTbTestMode(_KevalTbTorchFunctionMode):
    """While a test runs: torch.empty & co. give zeros (tests return buffers their kernels write
    only in part; uninitialised memory would differ between the two processes), and on the CPU
    (cpu=True) tensors asked for on 'cuda' are made on the CPU."""

    def __init__(self, cpu, fill_empty):
        super().__init__()
        self.cpu, self.fill_empty = cpu, fill_empty

    def __torch_function__(self, func, types, args=(), kwargs=None):
        torch = _keval_tb_torch
        kwargs = dict(kwargs or {})
        if self.cpu:
            if func is torch.Tensor.cuda:
                return args[0]
            if _keval_tb_is_cuda(kwargs.get("device")):
                kwargs["device"] = "cpu"
            if func is torch.Tensor.to:
                args = tuple("cpu" if _keval_tb_is_cuda(a) else a for a in args)
        result = func(*args, **kwargs)
        if self.fill_empty and func in _KEVAL_TB_EMPTIES and isinstance(result, torch.Tensor):
            with torch.no_grad():
                result.zero_()
        return result


class _KevalTbNoDevice:
    """Stands in for torch.cuda.device / _DeviceGuard on the CPU: a context that does nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@_keval_tb_contextlib.contextmanager
def _keval_tb_test_context(fill_empty):
    """Grad on (the runner calls under no_grad; tests may call backward), the test mode, and on
    the CPU: torch.cuda.device/_DeviceGuard as no-op contexts and `Tensor.is_cuda` true (tests
    assert it), all put back afterwards."""
    torch = _keval_tb_torch
    cpu = _keval_tb_interpreting()
    saved = {}
    if cpu:
        saved = {name: getattr(torch.cuda, name) for name in ("device", "_DeviceGuard") if hasattr(torch.cuda, name)}
    had_is_cuda = "is_cuda" in torch.Tensor.__dict__
    old_is_cuda = torch.Tensor.__dict__.get("is_cuda")
    deterministic = (torch.are_deterministic_algorithms_enabled(),
                     torch.is_deterministic_algorithms_warn_only_enabled())
    try:
        if cpu:
            for name in saved:
                setattr(torch.cuda, name, _KevalTbNoDevice)
            torch.Tensor.is_cuda = property(lambda self: True)
        if fill_empty:
            # the mode does not reach autograd's backward calls: there, deterministic mode fills
            # torch.empty with NaN (the same on both sides)
            torch.use_deterministic_algorithms(True, warn_only=True)
        # (no mode at all when it has nothing to do: timed GPU calls pay no dispatch overhead)
        with torch.enable_grad(), (_KevalTbTestMode(cpu, fill_empty) if cpu or fill_empty
                                   else _keval_tb_contextlib.nullcontext()):
            yield
    finally:
        torch.use_deterministic_algorithms(deterministic[0], warn_only=deterministic[1])
        for name, value in saved.items():
            setattr(torch.cuda, name, value)
        if cpu:
            if had_is_cuda:
                torch.Tensor.is_cuda = old_is_cuda
            elif "is_cuda" in torch.Tensor.__dict__:
                del torch.Tensor.is_cuda


def _keval_tb_plain(tensor):
    tensor = tensor.detach()
    if type(tensor) is not _keval_tb_torch.Tensor:
        tensor = tensor.as_subclass(_keval_tb_torch.Tensor)
    return tensor


def _keval_tb_text(text):
    return _keval_tb_torch.tensor(list(str(text).encode("utf-8")), dtype=_keval_tb_torch.uint8)


def _keval_tb_flatten(value, out=None):
    """The test's result as a flat list of tensors, the same way on both sides.

    dict: values in sorted-key order; list/tuple (torch.Size, named tuples): items in order;
    tensor: as it is (detached); bool/int/float/complex: a 0-d bool/int64/float64/complex128
    tensor; None: an empty uint8 tensor; str, dtype, device: their text as uint8 bytes;
    numpy arrays and scalars: as tensors; anything else: its type name as bytes.
    """
    torch = _keval_tb_torch
    if out is None:
        out = []
    if isinstance(value, torch.Tensor):
        out.append(_keval_tb_plain(value))
    elif isinstance(value, dict):
        for key in sorted(value, key=lambda k: (type(k).__name__, str(k))):
            _keval_tb_flatten(value[key], out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _keval_tb_flatten(item, out)
    elif isinstance(value, bool):
        out.append(torch.tensor(value, dtype=torch.bool))
    elif isinstance(value, int):
        out.append(torch.tensor(value, dtype=torch.int64) if -2**63 <= value < 2**63 else _keval_tb_text(value))
    elif isinstance(value, float):
        out.append(torch.tensor(value, dtype=torch.float64))
    elif isinstance(value, complex):
        out.append(torch.tensor(value, dtype=torch.complex128))
    elif value is None:
        out.append(torch.zeros(0, dtype=torch.uint8))
    elif isinstance(value, (str, torch.dtype, torch.device)):
        out.append(_keval_tb_text(value))
    elif type(value).__module__ == "numpy":
        out.append(_keval_tb_plain(torch.as_tensor(value)))
    else:
        out.append(_keval_tb_text(type(value).__qualname__))
    return out


def _keval_tb_exec(source, filename, namespace):
    """Runs source in namespace; its lines are registered so Triton's @jit can read them back."""
    _keval_tb_linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)


def _keval_tb_share_imports(source, namespace):
    """The test part's imports, bound in the code under test where it lacks the name: TritonBench
    appends the test to the same file, and some references use a module only the test imports."""
    found = {}
    exec(compile(source, "<tritonbench test imports>", "exec"), found)
    for name, value in found.items():
        if not name.startswith("__") and name not in namespace:
            namespace[name] = value


def _keval_tb_call_test(namespace, test_name, seed):
    with _keval_tb_test_context(fill_empty=True):
        _keval_tb_seed(seed)
        result = namespace[test_name]()
    return _keval_tb_flatten(result)


# --- performance cases (TritonBench's performance_metrics/perf_*/golden_metrics/<op>_perf.py) ---


class _KevalTbDoBenchConfig:
    def __init__(self, warm_up=25, repetition=100, grad_to_none=None, quantiles=None, return_mode="median"):
        self.warm_up, self.repetition = warm_up, repetition
        self.grad_to_none, self.quantiles, self.return_mode = grad_to_none, quantiles, return_mode


class _KevalTbInputList(list):
    """performance_metrics.input_tensors: counts appends, so generation knows which input it builds."""

    def append(self, item):
        super().append(item)
        _KevalTbGenerate.built = len(self)


class _KevalTbPerformanceMetrics:
    """Stands in for TritonBench's Performance_Metrics base class (only what the subclasses use)."""

    def __init__(self, op_name="", dtype=None, is_backward=False, **kwargs):
        self.op_name = op_name + ("backward" if is_backward else "")
        self.dtype, self.kwargs = dtype, kwargs
        self.input_tensors = []
        self.do_bench_config = _KevalTbDoBenchConfig()

    @property
    def input_tensors(self):
        return self.__dict__["input_tensors"]

    @input_tensors.setter
    def input_tensors(self, value):
        self.__dict__["input_tensors"] = _KevalTbInputList(value)
        _KevalTbGenerate.built = len(value)

    def get_do_bench_config(self, warmup=None, rep=None):
        self.do_bench_config = _KevalTbDoBenchConfig(warmup or 25, rep or 100)


_KEVAL_TB_FACTORY_NAMES = (
    "randn", "rand", "randint", "randn_like", "rand_like", "randint_like", "randperm", "normal",
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like", "arange", "linspace", "logspace", "eye", "tensor", "as_tensor",
)
_KEVAL_TB_FACTORIES = {getattr(_keval_tb_torch, n) for n in _KEVAL_TB_FACTORY_NAMES if hasattr(_keval_tb_torch, n)}
_KEVAL_TB_EMPTY = {_keval_tb_torch.empty: _keval_tb_torch.zeros, _keval_tb_torch.empty_like: _keval_tb_torch.zeros_like}


class _KevalTbGenerate(_KevalTbTorchFunctionMode):
    """get_input_tensors() under control: only input number `target` is made for real (the
    others as shape-only 'meta' tensors; target None: all real, -1: none), directly on the GPU
    when there is one (large inputs are slow to draw on the CPU), else on the CPU, and
    torch.empty gives zeros (uninitialised memory would differ between the two processes)."""

    built = 0

    def __init__(self, target):
        super().__init__()
        self.target = target
        gpu = _keval_tb_torch.cuda.is_available() and not _keval_tb_interpreting()
        self.device = "cuda" if gpu else "cpu"

    def __torch_function__(self, func, types, args=(), kwargs=None):
        torch = _keval_tb_torch
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda or (func is torch.Tensor.to and any(_keval_tb_is_cuda(a) for a in args[1:])):
            return args[0]
        if _keval_tb_is_cuda(kwargs.get("device")):
            kwargs["device"] = self.device
        if func in _KEVAL_TB_FACTORIES:
            func = _KEVAL_TB_EMPTY.get(func, func)
            if not (self.target is None or _KevalTbGenerate.built == self.target):
                kwargs["device"] = "meta"
            elif kwargs.get("device") is None and not (args and isinstance(args[0], _keval_tb_torch.Tensor)):
                kwargs["device"] = self.device  # (a *_like factory keeps its tensor's device)
        return func(*args, **kwargs)


def _keval_tb_has_meta(value):
    torch = _keval_tb_torch
    if isinstance(value, torch.Tensor):
        return value.is_meta
    if isinstance(value, (list, tuple)):
        return any(_keval_tb_has_meta(v) for v in value)
    if isinstance(value, dict):
        return any(_keval_tb_has_meta(v) for v in value.values())
    if isinstance(value, torch.nn.Module):
        return any(p.is_meta for p in value.parameters())
    return False


def _keval_tb_perf_load(source, imports, filename, namespace):
    """Runs a perf file's class definitions in namespace: its `from TritonBench_v1.<op> import f`
    names are taken from namespace itself (the submission's or the reference's own functions)."""
    namespace["Performance_Metrics"] = _KevalTbPerformanceMetrics
    namespace["do_bench_config"] = _KevalTbDoBenchConfig
    for alias, original in imports.items():
        if original in namespace:
            namespace[alias] = namespace[original]
    _keval_tb_exec(source, filename, namespace)


def _keval_tb_perf_instance(namespace):
    if "_keval_tb_perf_object" not in namespace:
        namespace["_keval_tb_perf_object"] = namespace["performance_metrics"]()
    return namespace["_keval_tb_perf_object"]


def _keval_tb_perf_generate(namespace, target, seed):
    """The perf object's input list, built under _KevalTbGenerate(target)."""
    metrics = _keval_tb_perf_instance(namespace)
    _keval_tb_seed(seed)
    _KevalTbGenerate.built = 0
    metrics.input_tensors = []
    with _KevalTbGenerate(target):
        metrics.get_input_tensors()
    inputs = list(metrics.input_tensors)
    metrics.input_tensors = []
    return inputs


def _keval_tb_perf_inputs(namespace, index, seed):
    """make_inputs of a performance case: (seed, index, the perf file's input number `index`),
    on the GPU through the perf file's own to_cuda when there is one."""
    inputs = _keval_tb_perf_generate(namespace, index, seed)
    if index >= len(inputs) or _keval_tb_has_meta(inputs[index]):
        inputs = _keval_tb_perf_generate(namespace, None, seed)  # built in an unusual way: all real
    item = inputs[index]
    if _keval_tb_torch.cuda.is_available() and not _keval_tb_interpreting():
        item = _keval_tb_perf_instance(namespace).to_cuda(item)
    return (seed, index, item)


def _keval_tb_storages(value, found):
    torch = _keval_tb_torch
    if isinstance(value, torch.Tensor):
        found.add(value.untyped_storage().data_ptr())
    elif isinstance(value, (list, tuple)):
        for v in value:
            _keval_tb_storages(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            _keval_tb_storages(v, found)
    return found


def _keval_tb_perf_call(namespace, seed, item):
    """One call of the perf file's call_op; its result flattened (outputs that are inputs are
    copied: the runner would take them for tampering)."""
    with _keval_tb_test_context(fill_empty=False):  # timed: no extra fills
        # seeded before every call: call_op may draw its own tensors (an input of sizes only) or
        # random numbers (dropout, sampling), the same in both runs and both processes
        _keval_tb_seed(seed)
        result = _keval_tb_perf_instance(namespace).call_op(item)
    outputs = _keval_tb_flatten(result)
    inputs = _keval_tb_storages(item, set())
    return [t.clone() if t.untyped_storage().data_ptr() in inputs else t for t in outputs]
