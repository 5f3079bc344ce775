"""KernelBenchX glue that runs inside job children (and in the adapter, to size the cases).

The adapter copies this file into every generated task folder (`kernelbenchx_runtime.py`), next
to the peer's files laid out as in the checkout (`peer/data/kernelbenchx/<Category>/<stem>.py`:
the reference implementation, the part above the 146-`#` separator; `peer/tests/<stem>.py`: the
test part below it; `peer/metrics/golden_metrics/<stem>_perf.py`, `peer/metrics/
performance_utils.py`, `peer/utils/data_utils.py`). reference.py, golden.py and the submission
glue load this file by path, so a sandboxed job needs nothing outside the task folder. It
depends on torch only (the perf template itself imports triton).

One entry serves both kinds of case, told apart by the first argument:

- `(TESTS, seed_tensor)`: KernelBenchX's own correctness test. Seeds `random` and torch (and
  KERNELBENCHX_SEED) with the seed, runs the test code in a copy of the implementation's
  namespace (as KernelBenchX runs it appended to the file), the task's function bound to the
  implementation under test, 'cuda' in the test code mapped to the job's device; returns
  `test_results` flattened into a list of tensors (dict keys sorted, as KernelBenchX compares).
- `(PERF, spec, *leaves)`: one input of the perf template (`get_input_tensors()[i]` passed
  through `to_cuda`, flattened so the runner moves every tensor to the job's device); the call is
  the template's own `call_op`. Built on the default device: the task says `inputs_on_device`,
  so a CUDA job builds it on the GPU (on the CPU the large inputs took most of a job's time); a
  template that fails there is built again on the CPU (not one that ran out of memory: the CPU's
  values differ from the other job's, a false `mismatch`).
"""

import ast
import contextlib
import os
import random
import re
import sys
import types

import torch
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

TESTS = "keval:kernelbenchx-tests"
PERF = "keval:kernelbenchx-perf"
DEVICE_NAME = "_KEVAL_DEVICE"
PERF_CALL_SEED = 0  # KERNELBENCHX_SEED's default
CUDA_STRING = re.compile(r"cuda(:\d+)?")


# ---------------------------------------------------------------------------------------------
# Source rewriting: the peer's code hard-codes CUDA


class _DeviceRewrite(ast.NodeTransformer):
    """'cuda' / 'cuda:0' -> _KEVAL_DEVICE; x.cuda() -> x.to(_KEVAL_DEVICE);
    torch.cuda.synchronize() -> a no-op off CUDA."""

    def visit_Constant(self, node):
        if isinstance(node.value, str) and CUDA_STRING.fullmatch(node.value):
            return ast.copy_location(ast.Name(DEVICE_NAME, ast.Load()), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "cuda" and not node.args and not node.keywords:
            node.func = ast.copy_location(ast.Attribute(func.value, "to", ast.Load()), func)
            node.args = [ast.Name(DEVICE_NAME, ast.Load())]
        elif ast.unparse(func) == "torch.cuda.synchronize":
            node.func = ast.copy_location(ast.Name("_keval_synchronize", ast.Load()), func)
        return node


def rewritten(path: str):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    return compile(ast.fix_missing_locations(_DeviceRewrite().visit(tree)), path, "exec")


def device_text(device) -> str:
    device = torch.device(device)
    if device.type == "cuda" and (device.index is None or device.index == torch.cuda.current_device()):
        return "cuda"
    return str(device)


def _synchronize():
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


# ---------------------------------------------------------------------------------------------
# Outputs


def seed_rngs(seed: int) -> None:
    """`random` and torch seeded as KernelBenchX seeds them. torch: what torch.manual_seed(seed)
    does for the CPU and CUDA generators, and nothing else. torch.manual_seed also queues the
    seed for backends that never start here (XPU, MTIA), each with a formatted stack of the
    caller: about 0.4 ms a call, which the timed call paid on every sample."""
    random.seed(seed)
    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_initialized():
        for generator in torch.cuda.default_generators:
            generator.manual_seed(seed)
    elif torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)  # applied when CUDA starts


def flatten(value, out=None) -> list:
    """test_results / call_op results as a list of tensors: dicts by sorted key, lists and tuples
    in order; numbers, bools, strings, None and numpy arrays as tensors, so that everything
    KernelBenchX compares is compared."""
    out = [] if out is None else out
    if isinstance(value, torch.Tensor):
        out.append(value.detach())
    elif isinstance(value, dict):
        for key in sorted(value, key=str):
            flatten(value[key], out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            flatten(item, out)
    elif value is None:
        out.append(torch.zeros(0, dtype=torch.bool))
    elif isinstance(value, bool):
        out.append(torch.tensor(value))
    elif isinstance(value, int):
        out.append(torch.tensor(value, dtype=torch.int64))
    elif isinstance(value, float):
        out.append(torch.tensor(value, dtype=torch.float64))
    elif isinstance(value, complex):
        out.append(torch.tensor(value, dtype=torch.complex128))
    elif isinstance(value, (str, bytes, torch.dtype, torch.device, torch.Size)):
        data = value if isinstance(value, bytes) else str(tuple(value) if isinstance(value, torch.Size) else value).encode()
        out.append(torch.tensor(list(data), dtype=torch.uint8))
    else:
        try:
            import numpy

            if isinstance(value, (numpy.ndarray, numpy.generic)):
                out.append(torch.from_numpy(numpy.array(value)))
                return out
        except ImportError:
            pass
        raise TypeError(f"cannot compare a {type(value).__name__} in the results")
    return out


# ---------------------------------------------------------------------------------------------
# Perf inputs: only the asked-for item is made for real


_FACTORIES = {torch.rand, torch.randn, torch.randint, torch.empty, torch.zeros, torch.ones, torch.full,
              torch.arange, torch.linspace, torch.logspace, torch.eye, torch.tensor, torch.randperm,
              torch.empty_strided, torch.normal, torch.as_tensor}


_SCALARS = {torch.Tensor.item: 0, torch.Tensor.__int__: 0, torch.Tensor.__index__: 0,
            torch.Tensor.__float__: 0.0, torch.Tensor.__bool__: False}


class _OnlyItem(TorchFunctionMode):
    """While get_input_tensors() builds items other than `index` (told by the length of the
    list it appends to; index -1: all of them), factory calls make meta tensors: no time, no
    memory, no RNG draws. A meta tensor's value (`.item()`, `int(t)`) reads as 0."""

    def __init__(self, perf, index):
        super().__init__()
        self.perf = perf
        self.index = index

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in _SCALARS and args and isinstance(args[0], torch.Tensor) and args[0].is_meta:
            return _SCALARS[func]
        items = getattr(self.perf, "input_tensors", None)
        building = isinstance(items, list) and len(items) == self.index
        if not building and func in _FACTORIES:
            kwargs["device"] = "meta"
            kwargs.pop("generator", None)
            kwargs.pop("pin_memory", None)
        return func(*args, **kwargs)


def _has_meta(value) -> bool:
    return any(isinstance(t, torch.Tensor) and t.is_meta for t in pytree.tree_leaves(value))


class Task:
    def __init__(self, root: str, category: str, stem: str, function: str):
        self.root = root
        self.category = category
        self.stem = stem
        self.function = function
        self.impl_path = os.path.join(root, "data", "kernelbenchx", category, f"{stem}.py")
        self.test_path = os.path.join(root, "tests", f"{stem}.py")
        self.perf_path = os.path.join(root, "metrics", "golden_metrics", f"{stem}_perf.py")
        self._impl = None
        self._test_code = None
        self._data_utils = {}  # per device text: its defaults (device='cuda') are bound when it loads
        self._perf_utils = None
        self._perf = {}

    # the reference implementation
    def impl(self):
        if self._impl is None:
            module = types.ModuleType(f"keval_kbx_impl_{abs(hash(self.impl_path))}")
            module.__file__ = self.impl_path
            with open(self.impl_path, encoding="utf-8") as f:
                exec(compile(f.read(), self.impl_path, "exec"), module.__dict__)
            self._impl = module
        return self._impl

    def reference_function(self):
        return getattr(self.impl(), self.function)

    # helpers the peer code imports by module name
    def _helper(self, name: str, path: str, device: str):
        module = types.ModuleType(name)
        module.__file__ = path
        module.__dict__[DEVICE_NAME] = device
        module.__dict__["_keval_synchronize"] = _synchronize
        exec(rewritten(path), module.__dict__)
        return module

    @contextlib.contextmanager
    def _peer_modules(self, function, device: str = "cpu"):
        """sys.modules as the peer's code expects it: data_utils (loaded for `device`: its
        functions' default device is bound when it loads), performance_utils and the kernelbenchx
        package holding `function` under the task's module path; sys.path as it was afterwards
        (the peer's code appends to it)."""
        data_utils_path = os.path.join(self.root, "utils", "data_utils.py")
        if device not in self._data_utils and os.path.exists(data_utils_path):
            self._data_utils[device] = self._helper("data_utils", data_utils_path, device)
        if self._perf_utils is None and os.path.exists(os.path.join(self.root, "metrics", "performance_utils.py")):
            perf_utils_path = os.path.join(self.root, "metrics", "performance_utils.py")
            self._perf_utils = types.ModuleType("performance_utils")
            self._perf_utils.__file__ = perf_utils_path
            with open(perf_utils_path, encoding="utf-8") as f:
                exec(compile(f.read(), perf_utils_path, "exec"), self._perf_utils.__dict__)
        names = ["kernelbenchx", f"kernelbenchx.{self.category}", f"kernelbenchx.{self.category}.{self.stem}"]
        package = types.ModuleType(names[0])
        package.__path__ = []
        sub = types.ModuleType(names[1])
        sub.__path__ = []
        leaf = types.ModuleType(names[2])
        leaf.__file__ = self.impl_path
        setattr(leaf, self.function, function)
        setattr(package, self.category, sub)
        setattr(sub, self.stem, leaf)
        installed = {"data_utils": self._data_utils.get(device), "performance_utils": self._perf_utils,
                     names[0]: package, names[1]: sub, names[2]: leaf}
        saved = {k: sys.modules.get(k) for k in installed}
        saved_path = list(sys.path)
        for key, module in installed.items():
            if module is not None:
                sys.modules[key] = module
        try:
            yield
        finally:
            sys.path[:] = saved_path
            for key, module in saved.items():
                if module is None:
                    sys.modules.pop(key, None)
                else:
                    sys.modules[key] = module

    # KernelBenchX's test
    def run_tests(self, function, namespace: dict, device, seed: int) -> list:
        if self._test_code is None:
            self._test_code = rewritten(self.test_path)
        text = device_text(device)
        scope = dict(namespace)
        scope.update({"__name__": "__main__", "__file__": self.impl_path, DEVICE_NAME: text,
                      "_keval_synchronize": _synchronize, self.function: function})
        scope.pop("test_results", None)
        seed = int(seed)
        old_seed = os.environ.get("KERNELBENCHX_SEED")
        os.environ["KERNELBENCHX_SEED"] = str(seed)
        try:
            with self._peer_modules(function, text):
                seed_rngs(seed)
                with torch.enable_grad():  # as KernelBenchX runs it (some tests call backward)
                    exec(self._test_code, scope)
        finally:
            if old_seed is None:
                os.environ.pop("KERNELBENCHX_SEED", None)
            else:
                os.environ["KERNELBENCHX_SEED"] = old_seed
        if "test_results" not in scope:
            raise RuntimeError(f"{self.stem}: the test code set no `test_results`")
        return flatten(scope["test_results"])

    # the perf template
    def perf(self, function):
        """performance_metrics() of the template, its calls going to `function`."""
        key = id(function)
        held = self._perf.get(key)
        if held is not None and held[0] is function:
            return held[1]
        return self._perf_load(function)[1]

    def _perf_load(self, function):
        key = id(function)
        module = types.ModuleType(f"keval_kbx_perf_{self.stem}_{len(self._perf)}")
        module.__file__ = self.perf_path
        module.__dict__.update({DEVICE_NAME: "cpu", "_keval_synchronize": _synchronize})
        with self._peer_modules(function):
            exec(rewritten(self.perf_path), module.__dict__)
        for name, value in list(vars(module).items()):  # also a function the template loaded by path
            if name == self.function or (callable(value) and getattr(value, "__name__", None) == self.function
                                         and getattr(getattr(value, "__code__", None), "co_filename", "").endswith(
                                             os.path.join(self.category, f"{self.stem}.py"))):
                setattr(module, name, function)
        instance = module.performance_metrics()
        self._perf[key] = (function, instance, module)
        return self._perf[key]

    def perf_item(self, index: int, seed: int, device: str = "cpu"):
        """Input `index` of the template (after to_cuda), made on `device` ('meta' to size it)."""
        function = self.reference_function()
        held = self._perf.get(id(function))
        _, instance, module = held if held is not None and held[0] is function else self._perf_load(function)
        module.__dict__[DEVICE_NAME] = device
        seed_rngs(seed)
        with self._peer_modules(self.reference_function(), device):
            if device == "meta":
                with torch.device("meta"), _OnlyItem(instance, -1):
                    instance.get_input_tensors()
                    items = list(instance.input_tensors)
                    return len(items), (instance.to_cuda(items[index]) if 0 <= index < len(items) else None), instance
            item = None
            try:
                with _OnlyItem(instance, index):
                    instance.get_input_tensors()
                item = instance.input_tensors[index]
                if _has_meta(item):
                    item = None
            except Exception:  # noqa: BLE001 - the template needs real tensors throughout
                item = None
            if item is None:
                seed_rngs(seed)
                instance.get_input_tensors()
                item = instance.input_tensors[index]
            instance.input_tensors = []
            return None, instance.to_cuda(item), instance

    def make_inputs(self, case: dict, seed: int) -> tuple:
        if "perf_index" not in case:
            return (TESTS, torch.tensor(int(seed), dtype=torch.int64))
        device = torch.empty(0).device  # the job's own for an inputs_on_device task
        try:
            _, item, _ = self.perf_item(int(case["perf_index"]), seed, str(device))
        except Exception as exc:
            if device.type == "cpu" or isinstance(exc, torch.OutOfMemoryError) or "out of memory" in str(exc):
                raise  # depends on what else holds the GPU: the CPU's draw has other values
            with torch.device("cpu"):
                _, item, _ = self.perf_item(int(case["perf_index"]), seed)
        leaves, spec = pytree.tree_flatten(item)
        return (PERF, spec, *leaves)

    def call(self, function, namespace: dict, args):
        """The entry's work for `function` (the reference's or the submission's)."""
        if args[0] == TESTS:
            seed = args[1]
            return self.run_tests(function, namespace, seed.device, int(seed.item()))
        spec, leaves = args[1], list(args[2:])
        item = pytree.tree_unflatten(leaves, spec)
        # seeded before every call, as KernelBenchX seeds its runs: a reference that draws random
        # numbers (dropout, sampling) then gives the same values in both runs and both processes
        seed_rngs(PERF_CALL_SEED)
        with torch.enable_grad():
            outputs = flatten(self.perf(function).call_op(item))
        # an output that is (a view of) an input, e.g. an in-place step's parameter, is copied:
        # the runner would take it for tampering; mutation itself is judged on the inputs
        storages = {t.untyped_storage().data_ptr() for t in leaves if isinstance(t, torch.Tensor) and not t.is_meta}
        return [t.clone() if t.untyped_storage().data_ptr() in storages and t.numel() else t for t in outputs]


_TASKS = {}


def task(root: str, category: str, stem: str, function: str) -> Task:
    key = (root, category, stem, function)
    if key not in _TASKS:
        _TASKS[key] = Task(root, category, stem, function)
    return _TASKS[key]


def wrap(task_: Task, namespace: dict, entry: str):
    """The entry for a submission's module `namespace`: its function (named as KernelBenchX's test
    calls it, or as the task's file, or kernel_function) behind the case dispatch; calls with
    other arguments go straight to the function. None when the module defines none of them."""
    current = namespace.get(entry)
    if getattr(current, "__keval_kbx_entry__", False):
        return current
    function = None
    for name in (task_.function, entry, "kernel_function"):
        if callable(namespace.get(name)):
            function = namespace[name]
            break
    if function is None:
        return None

    def entry_function(*args, **kwargs):
        if args and not kwargs and isinstance(args[0], str) and args[0] in (TESTS, PERF):
            return task_.call(function, namespace, args)
        return function(*args, **kwargs)

    entry_function.__keval_kbx_entry__ = True
    entry_function.__name__ = entry
    entry_function.__qualname__ = entry
    entry_function.__wrapped__ = function
    return entry_function
