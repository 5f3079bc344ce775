"""KernelBench glue that runs inside job children (and in the adapter, to size the cases).

The adapter copies this file into every generated task folder (`kernelbench_runtime.py`);
reference.py, golden.py and the submission glue load it from there by path, so a sandboxed
job needs nothing outside the task folder. It depends on torch only.

A task wraps one KernelBench problem file (copied as `problem.py`): `class Model`,
`get_inputs()`, `get_init_inputs()`. What both sides share:

- inputs: `torch.manual_seed(seed)`, then `get_inputs()`, as returned (integer tensors stay
  integer: KernelBench itself casts every input to the float precision, keval does not). The
  task says `inputs_on_device`: on the GPU the job calls this with its device as the default
  device, so `torch.rand(M, N)` draws there (level 1's 4 GiB inputs took 20 s a job on one CPU
  thread); a get_inputs that fails there (it needs CPU tensors) is drawn again on the CPU,
  unless it ran out of memory (a KernelBenchX draw that did so on the GPU and was
  drawn again on the CPU got other values than the other job's, and a `mismatch`);
- weights: `Model(*get_init_inputs())` built on the CPU under `torch.manual_seed(0)` (the seed
  also set before `get_init_inputs()`, as KernelBench does), then moved to the inputs' device;
  the submission's `ModelNew(*same init inputs)` is built the same way and then receives
  Model's parameters and buffers **by name** (same name and shape: copied; a report on stderr
  lists what did not match). The same seed before both constructors also gives equal weights
  to a ModelNew that builds the same layers in the same order under other names;
- calls under `torch.no_grad()`, models left in training mode (as KernelBench leaves them);
- scaled variants: for CPU runs, a problem whose inputs are too big for Triton's interpreter
  is re-executed with its integer literals (>= 32) in module-level assignments and in
  get_inputs/get_init_inputs divided by a factor (`scale`); which variant a call belongs to is
  told by the shapes of its inputs.
"""

import ast
import hashlib
import sys
import types

import torch

WEIGHT_SEED = 0
MIN_SCALED = 32  # integer literals below this (kernel sizes, dims, strides) are never scaled
SCALED_FLOOR = 8  # nor scaled below this
SCALED_FUNCTIONS = ("get_inputs", "get_init_inputs")


def scaled_literal(value: int, factor: int) -> int:
    """value // factor, not below 8, odd values stay odd (odd sizes test masking)."""
    if factor == 1 or value < MIN_SCALED:
        return value
    out = max(value // factor, SCALED_FLOOR)
    if value % 2:
        out |= 1
    return min(out, value)


class _Scaler(ast.NodeTransformer):
    def __init__(self, factor: int):
        self.factor = factor

    def visit_Constant(self, node):
        if type(node.value) is int:
            return ast.copy_location(ast.Constant(scaled_literal(node.value, self.factor)), node)
        return node


def scaled_tree(source: str, path: str, factor: int) -> ast.Module:
    tree = ast.parse(source, path)
    if factor == 1:
        return tree
    scaler = _Scaler(factor)
    for index, node in enumerate(tree.body):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            node.value = scaler.visit(node.value)
        elif isinstance(node, ast.FunctionDef) and node.name in SCALED_FUNCTIONS:
            tree.body[index] = scaler.visit(node)
    return ast.fix_missing_locations(tree)


def load_problem(path: str, factor: int = 1, source: str = None):
    """The problem file executed as a fresh module (integer literals scaled by `factor`)."""
    if source is None:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    code = compile(scaled_tree(source, path, factor), path, "exec")
    name = f"keval_kernelbench_problem_{hashlib.sha256(path.encode()).hexdigest()[:12]}_x{factor}"
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def out_of_memory(exc: BaseException) -> bool:
    """A failure that depends on what else holds the GPU: never a reason to draw on the CPU
    instead (other values than the other job's). The job reports it and is retried alone."""
    return isinstance(exc, torch.OutOfMemoryError) or "out of memory" in str(exc)


def signature(inputs) -> tuple:
    """What tells the variants of one problem apart: shapes and dtypes (values for non-tensors)."""
    out = []
    for value in inputs:
        if isinstance(value, torch.Tensor):
            out.append((tuple(value.shape), str(value.dtype)))
        else:
            out.append((type(value).__name__, repr(value)[:64]))
    return tuple(out)


def meta_inputs(module) -> list:
    with torch.device("meta"):
        return list(module.get_inputs())


def device_of(inputs) -> torch.device:
    for value in inputs:
        if isinstance(value, torch.Tensor):
            return value.device
    return torch.device("cpu")


def copy_weights(source: torch.nn.Module, target: torch.nn.Module) -> str:
    """Copies source's parameters and buffers into target's of the same name and shape.
    Returns "" when every name matched, else a one-line report."""
    mine = source.state_dict()
    theirs = target.state_dict()
    copied, wrong_shape = 0, []
    with torch.no_grad():
        for key, tensor in theirs.items():
            if key not in mine:
                continue
            if mine[key].shape != tensor.shape:
                wrong_shape.append(f"{key} {list(tensor.shape)} (Model: {list(mine[key].shape)})")
                continue
            tensor.copy_(mine[key])
            copied += 1
    missing = [k for k in mine if k not in theirs]
    extra = [k for k in theirs if k not in mine]
    if not (missing or extra or wrong_shape):
        return ""
    parts = [f"keval: copied {copied} of Model's {len(mine)} parameters/buffers into ModelNew by name"]
    if missing:
        parts.append(f"not in ModelNew: {', '.join(missing[:8])}")
    if extra:
        parts.append(f"only in ModelNew (kept as built under the same seed): {', '.join(extra[:8])}")
    if wrong_shape:
        parts.append(f"shape differs: {', '.join(wrong_shape[:8])}")
    return "; ".join(parts)


class Problem:
    """One problem file and its variants (scale 1 = the problem as written)."""

    def __init__(self, path: str, scales=(1,)):
        self.path = path
        self.scales = tuple(scales)
        self._modules = {}
        self._by_signature = None
        self._reference = {}
        self._new = {}

    def module(self, scale: int = 1):
        if scale not in self._modules:
            self._modules[scale] = load_problem(self.path, scale)
        return self._modules[scale]

    def make_inputs(self, scale: int, seed: int) -> tuple:
        module = self.module(scale)
        torch.manual_seed(seed)
        try:
            return tuple(module.get_inputs())
        except Exception as exc:
            if torch.empty(0).device.type == "cpu" or out_of_memory(exc):
                raise
        with torch.device("cpu"):  # e.g. a get_inputs that goes through numpy
            torch.manual_seed(seed)
            return tuple(module.get_inputs())

    def scale_of(self, inputs) -> int:
        if len(self.scales) == 1:
            return self.scales[0]
        if self._by_signature is None:
            table = {}
            for scale in self.scales:
                if scale != 1:
                    table.setdefault(signature(meta_inputs(self.module(scale))), scale)
            self._by_signature = table
        # anything that is not a scaled variant is the problem as written
        return self._by_signature.get(signature(inputs), 1)

    def _build(self, module, classes):
        """Builds each class of `classes` with the problem's init inputs, on the CPU, each under
        the weight seed (the caller's RNG state is left as it was)."""
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(WEIGHT_SEED)
            init = list(module.get_init_inputs())
            built = []
            for cls in classes:
                torch.manual_seed(WEIGHT_SEED)
                with torch.device("cpu"):
                    built.append(cls(*init))
        return built

    def reference(self, *inputs):
        scale = self.scale_of(inputs)
        device = device_of(inputs)
        key = (scale, str(device))
        model = self._reference.get(key)
        if model is None:
            module = self.module(scale)
            (model,) = self._build(module, [module.Model])
            model = self._reference[key] = model.to(device)
        with torch.no_grad():
            return model(*inputs)

    def forward_new(self, model_new_class, inputs):
        scale = self.scale_of(inputs)
        device = device_of(inputs)
        key = (scale, str(device), id(model_new_class))
        held = self._new.get(key)
        if held is None or held[0] is not model_new_class:
            module = self.module(scale)
            reference, new = self._build(module, [module.Model, model_new_class])
            report = copy_weights(reference, new)
            if report:
                print(report, file=sys.stderr, flush=True)
            held = self._new[key] = (model_new_class, new.to(device))
        with torch.no_grad():
            return held[1](*inputs)


_PROBLEMS = {}


def problem(path: str, scales=(1,)) -> Problem:
    """One Problem per (path, scales) and process: reference.py, golden.py and the submission
    glue of a task share it (and its loaded variants)."""
    key = (path, tuple(scales))
    if key not in _PROBLEMS:
        _PROBLEMS[key] = Problem(path, scales)
    return _PROBLEMS[key]
