"""Runtime checks around candidate calls: guard bands, output poisoning, tampering, output types.

All of them report raw facts; the controller decides (out_of_bounds, tampering, ...).

- Guard bands: each tensor input is copied into a larger buffer [guard | data | guard]; the
  guards hold a canary (NaN for floating dtypes, so an unmasked read poisons the result;
  0x7F bytes for integer/bool dtypes) and are compared with a copy after each call.
- Output poisoning: before each call a block is allocated, filled with 0xFF bytes (NaN in every
  float format) and freed, so outputs made with torch.empty start as garbage, not as zeros or
  as the previous call's result.
- Tampering: identities of timing, comparison, saving and messaging functions (torch, time,
  json, os, Triton's launch path with our kernel tracking, the runner's own) are recorded
  before the candidate loads and verified after import, each call and timing.
"""

import builtins  # noqa: F401  (watched: builtins.open)
import json  # noqa: F401  (watched)
import os  # noqa: F401  (watched)
import sys
import time  # noqa: F401  (watched)

import torch

GUARD_ALIGN = 256
POISON_MAX_BYTES = 256 << 20
POISON_MIN_BYTES = 1 << 20
SMALL_POOL_BLOCK = 1 << 20  # the CUDA caching allocator serves requests up to 1 MiB from a pool of its own
SMALL_POOL_BLOCKS = 8
NAN_BYTE = 0xFF  # NaN in every float format
FINITE_BYTE = 0x33  # finite in every float format (4.2e-8 float32, 0.22 float16)

def settings_from(request: dict) -> dict:
    """The request's checks (their types checked by the zygote: request_check.py)."""
    checks = request.get("checks") or {}
    return {
        "guard_bytes": int(checks.get("guard_bytes") or 0),
        "poison_outputs": bool(checks.get("poison_outputs")),
        "tamper": bool(checks.get("tamper")),
        "timed_output_check": bool(checks.get("timed_output_check")),
        "profile_kernels": bool(checks.get("profile_kernels")),
    }


# -- argument traversal (the same reach as inputs.tensors_in) -----------------------------

def map_tensors(args, fn) -> tuple:
    """args with every tensor (top level, and inside list/tuple/dict arguments one level deep)
    replaced by fn(tensor), in the order inputs.tensors_in lists them."""
    def one(value):
        if isinstance(value, torch.Tensor):
            return fn(value)
        if isinstance(value, (list, tuple)):
            return type(value)(fn(v) if isinstance(v, torch.Tensor) else v for v in value)
        if isinstance(value, dict):
            return {k: (fn(v) if isinstance(v, torch.Tensor) else v) for k, v in value.items()}
        return value
    return tuple(one(arg) for arg in args)


# -- guard bands ----------------------------------------------------------------------------

def _plain_allocation(nbytes: int, device: torch.device) -> torch.Tensor:
    return torch.empty(nbytes, dtype=torch.uint8, device=device)


def guard_size(guard_bytes: int) -> int:
    return -(-int(guard_bytes) // GUARD_ALIGN) * GUARD_ALIGN


def canary_bytes(dtype: torch.dtype, nbytes: int, finite: bool = False) -> torch.Tensor:
    """nbytes of canary for dtype, as uint8 on the CPU: NaN for floats, or a finite value."""
    if finite:
        element = torch.tensor([FINITE_BYTE], dtype=torch.uint8)
    elif dtype.is_floating_point or dtype.is_complex:
        element = torch.full((1,), float("nan"), dtype=torch.float32).to(dtype).view(torch.uint8)
    else:
        element = torch.tensor([0x7F], dtype=torch.uint8)
    reps = -(-nbytes // element.numel())
    return element.repeat(reps)[:nbytes].contiguous()


def span_elements(shape, stride) -> int:
    """Elements of storage a layout reaches from its first element."""
    if any(size == 0 for size in shape):
        return 0
    return 1 + sum((size - 1) * step for size, step in zip(shape, stride))


def _span_elements(t: torch.Tensor) -> int:
    """Elements of storage the tensor reaches from its storage offset."""
    return span_elements(t.shape, t.stride())


def storage_span(t: torch.Tensor) -> torch.Tensor:
    """A 1-D view of the storage the tensor reaches (any layout: expanded, transposed, sliced)."""
    return t.as_strided((_span_elements(t),), (1,), t.storage_offset())


def guarded_bytes(t: torch.Tensor, guard_bytes: int) -> int:
    """What Guarded asks its allocator for to place t (its gradient apart): the guards, t's
    span, and room to start it 256-byte aligned."""
    return guard_size(guard_bytes) * 2 + _span_elements(t) * t.element_size() + GUARD_ALIGN


class Guarded:
    """One input placed between guard bands; `tensor` has the input's shape, strides and dtype."""

    def __init__(self, t: torch.Tensor, guard_bytes: int, finite: bool = False, allocate=None):
        self.guard = guard_size(guard_bytes)
        span = _span_elements(t)
        data_bytes = span * t.element_size()
        total = self.guard * 2 + data_bytes
        allocate = allocate or _plain_allocation
        raw = allocate(guarded_bytes(t, guard_bytes), t.device)
        shift = (-raw.data_ptr()) % GUARD_ALIGN  # the data starts 256-byte aligned (as cudaMalloc's)
        self.buffer = raw[shift: shift + total]
        self.canary = canary_bytes(t.dtype, self.guard, finite).to(t.device)
        self.buffer[: self.guard].copy_(self.canary)
        self.buffer[self.guard + data_bytes:].copy_(self.canary)
        self.data_bytes = data_bytes
        with torch.no_grad():  # a copy, not a step of t's graph: the guarded tensor stays a leaf
            if span:
                flat = self.buffer[self.guard: self.guard + data_bytes].view(t.dtype)
                flat.copy_(storage_span(t))
                self.tensor = flat.as_strided(tuple(t.shape), tuple(t.stride()), flat.storage_offset())
            else:
                empty = self.buffer[self.guard: self.guard].view(t.dtype)
                self.tensor = empty.as_strided(tuple(t.shape), tuple(t.stride()))
        if t.requires_grad and t.is_leaf:
            # an optimizer's parameter (TritonBench-T's Adam): a leaf, with its gradient
            self.tensor.requires_grad_(True)
            if _has_guarded_grad(t):
                self.tensor.grad = Guarded(t.grad.detach(), 0, allocate=allocate).tensor

    def intact(self) -> bool:
        head = self.buffer[: self.guard]
        tail = self.buffer[self.guard + self.data_bytes:]
        return bool(torch.equal(head, self.canary)) and bool(torch.equal(tail, self.canary))


def _has_guarded_grad(t: torch.Tensor) -> bool:
    return t.requires_grad and t.is_leaf and t.grad is not None


def guarded_bytes_by_device(args, guard_bytes: int) -> dict:
    """{device: bytes} GuardBands(args, guard_bytes) asks its allocator for, in all."""
    needed = {}

    def count(t, guard):
        needed[t.device] = needed.get(t.device, 0) + guarded_bytes(t, guard)
        if _has_guarded_grad(t):
            count(t.grad, 0)
        return t

    map_tensors(args, lambda t: count(t, guard_bytes))
    return needed


class GuardBands:
    """The guarded copies of one call's inputs; `allocate(nbytes, device)` gives each buffer
    (default: torch.empty; the warden's puts them where the guest can map them)."""

    def __init__(self, args, guard_bytes: int, finite: bool = False, allocate=None):
        self.guarded = []

        def place(t):
            g = Guarded(t, guard_bytes, finite, allocate)
            self.guarded.append(g)
            return g.tensor

        self.args = map_tensors(args, place)

    def violations(self) -> list:
        """Indices (in inputs.tensors_in order) of inputs whose guards changed."""
        return [i for i, g in enumerate(self.guarded) if not g.intact()]


# -- output poisoning ---------------------------------------------------------------------

def poison_size(inputs: list) -> int:
    largest = max((t.numel() * t.element_size() for t in inputs), default=0)
    return int(min(POISON_MAX_BYTES, max(POISON_MIN_BYTES, 2 * largest)))


def _cached_free_block_sizes(device: torch.device) -> list:
    """Sizes of the free blocks the CUDA caching allocator holds for device, each in the pool
    a request of that size is served from (small: up to 1 MiB; large: above)."""
    sizes = []
    for segment in torch.cuda.memory_snapshot():
        if segment.get("device") != device.index:
            continue
        small = segment.get("segment_type") == "small"
        for block in segment.get("blocks", []):
            size = int(block.get("size", 0))
            if block.get("state") == "inactive" and size > 0 and small == (size <= SMALL_POOL_BLOCK):
                sizes.append(size)
    return sorted(sizes)


def poison_memory(device: torch.device, nbytes: int, fill: int = NAN_BYTE) -> bool:
    """Allocates nbytes, fills it with `fill` bytes (NaN by default) and frees it, so the next
    allocations of the call start as NaN. On CUDA also every free block the caching allocator holds (each requested at
    its own size, smallest first, so best fit hands out exactly those blocks), so a torch.empty
    output cannot come back holding an earlier tensor's values. On the CPU: best effort."""
    try:
        index = device.index if device.index is not None else (
            torch.cuda.current_device() if device.type == "cuda" else None)
        device = torch.device(device.type, index) if index is not None else device
        blocks = [torch.empty(nbytes, dtype=torch.uint8, device=device)]
        if device.type == "cuda":
            blocks += [torch.empty(SMALL_POOL_BLOCK, dtype=torch.uint8, device=device)
                       for _ in range(SMALL_POOL_BLOCKS)]
            blocks += [torch.empty(size, dtype=torch.uint8, device=device)
                       for size in _cached_free_block_sizes(device)]
        for block in blocks:
            block.fill_(fill)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        del blocks
        return True
    except Exception:
        return False


# -- outputs that are not plain tensors ----------------------------------------------------

def type_name(value) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    return f"{module}.{kind.__qualname__}" if module and module != "builtins" else kind.__qualname__


def foreign_output_types(outputs) -> list:
    """Names of output types that are not exactly torch.Tensor (a subclass, a lazy wrapper)."""
    if not outputs:
        return []
    return [type_name(t) for t in outputs if type(t) is not torch.Tensor]


# -- tampering ------------------------------------------------------------------------------

WATCHED = (
    ("time", "perf_counter"), ("time", "perf_counter_ns"), ("time", "time"), ("time", "monotonic"),
    ("time", "process_time"),
    ("torch", "cuda.Event"), ("torch", "cuda.Event.record"), ("torch", "cuda.Event.elapsed_time"),
    ("torch", "cuda.Event.synchronize"), ("torch", "cuda.synchronize"), ("torch", "cuda.current_stream"),
    ("torch", "allclose"), ("torch", "equal"), ("torch", "isclose"), ("torch", "testing.assert_close"),
    ("torch", "isnan"), ("torch", "isfinite"), ("torch", "where"),
    ("torch", "save"), ("torch", "load"),
    ("torch", "Tensor"), ("torch", "Tensor.clone"), ("torch", "Tensor.copy_"), ("torch", "Tensor.__eq__"),
    ("torch", "Tensor.cpu"), ("torch", "Tensor.to"), ("torch", "Tensor.detach"), ("torch", "Tensor.data_ptr"),
    ("torch", "Tensor.untyped_storage"), ("torch", "Tensor.item"), ("torch", "Tensor.abs"),
    ("torch", "Tensor.__sub__"), ("torch", "empty"),
    ("triton.runtime.jit", "JITFunction.run"), ("triton.runtime.jit", "JITFunction.__getitem__"),
    ("triton.runtime.interpreter", "InterpretedFunction.run"),
    ("triton.runtime.interpreter", "InterpretedFunction.__getitem__"),
    # the CPU bounds check's patches (interpreter_memcheck.py)
    ("triton.runtime.interpreter", "InterpreterBuilder.create_masked_load"),
    ("triton.runtime.interpreter", "InterpreterBuilder.create_masked_store"),
    ("triton.runtime.interpreter", "InterpreterBuilder.create_atomic_rmw"),
    ("triton.runtime.interpreter", "InterpreterBuilder.create_atomic_cas"),
    ("triton.runtime.interpreter", "GridExecutor._init_args_hst"),
    ("triton.runtime.interpreter", "GridExecutor.__call__"),
    ("keval_runner.checks.kernel_tracking", "_record"), ("keval_runner.checks.kernel_tracking", "tracking"),
    ("keval_runner.checks.kernel_tracking", "split_by_module"),
    ("keval_runner.checks.kernel_tracking", "kernel_identity"),
    ("json", "dumps"), ("json", "JSONEncoder"), ("os", "write"), ("os", "_exit"), ("os", "replace"),
    ("builtins", "open"),
    ("keval_runner.protocol.messages", "MessageWriter.send"),
    ("keval_runner.protocol.messages", "MessageWriter.error"),
    ("keval_runner.protocol.messages", "encode"), ("keval_runner.protocol.messages", "write_all"),
    ("keval_runner.protocol.messages", "json_safe"),
    ("keval_runner.compare.compare", "tensors_identical"), ("keval_runner.compare.compare", "max_abs_diff"),
    ("keval_runner.compare.compare", "as_output_list"), ("keval_runner.compare.compare", "compare_outputs"),
    ("keval_runner.handoff.output_files", "save_outputs"),
    ("keval_runner.timing.interleaved_timing", "measure"),
    ("keval_runner.timing.interleaved_timing", "measure_interleaved"),
    ("keval_runner.timing.timing", "stop_reason"),
    ("keval_runner.checks.checks", "GuardBands"), ("keval_runner.checks.checks", "Guarded.intact"),
    ("keval_runner.checks.checks", "poison_memory"), ("keval_runner.checks.checks", "foreign_output_types"),
    ("keval_runner.checks.checks", "TamperWatch.check"),
    ("keval_runner.jobs.candidate_job", "CandidateJob"),
)

_MISSING = object()


def _resolve(root, path: str):
    value = root
    for part in path.split("."):
        value = getattr(value, part, _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


class TamperWatch:
    """Remembers the watched objects (by identity) and reports the ones later replaced.

    Everything it needs to report is bound when it is made (before the candidate loads): the
    writer's bound `send` and the module objects the names are resolved from."""

    def __init__(self, send, watched=WATCHED):
        self._send = send
        self._resolve = _resolve
        self._setattr = setattr
        self.check = self.check  # bound now: a patched TamperWatch.check is never used
        self.baseline = []  # (name, root module, path, original object)
        for module_name, path in watched:
            root = sys.modules.get(module_name)
            if root is None:
                continue
            original = _resolve(root, path)
            if original is not _MISSING:
                self.baseline.append((f"{module_name}.{path}", root, path, original))
        self.reported = set()

    def changed(self) -> list:
        names = []
        for name, root, path, original in self.baseline:
            if self._resolve(root, path) is not original:
                names.append(name)
        return names

    def restore(self, names) -> None:
        """Puts the originals back (best effort), so the runner's own checks stay sound."""
        wanted = set(names)
        for name, root, path, original in self.baseline:
            if name not in wanted:
                continue
            parent_path, _, attr = path.rpartition(".")
            parent = self._resolve(root, parent_path) if parent_path else root
            try:
                self._setattr(parent, attr, original)
            except Exception:
                pass

    def changed_names(self) -> list:
        """Names changed since the last report (each reported once); the originals put back."""
        changed = self.changed()
        new = [name for name in changed if name not in self.reported]
        if changed:
            self.restore(changed)
        self.reported.update(new)
        return new

    def check(self, stage: str, case=None, dtype=None, seed=None) -> list:
        """Sends one `tampering` message for names changed since the last report; returns them."""
        new = self.changed_names()
        if new:
            self._send("tampering", stage=stage, names=new, case=case, dtype=dtype, seed=seed)
        return new
