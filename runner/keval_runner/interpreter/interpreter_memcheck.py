"""Bounds checks for Triton's CPU interpreter: the judge's CPU mode and keval_mutate's
differential check.

On the CPU a load past an input reads whatever lies there (the judge's guard band, the
allocator's slack) and a store one element past an output the kernel allocated lands in the
allocator's slack: no output shows it, and such a kernel passes every case. A GPU run sees
these only under `--sanitize` (compute-sanitizer). Here, while a check is armed, every launch
records the byte ranges of its tensor arguments, and every active lane of a load, store or
atomic must address an element wholly inside one of them; the first that does not raises
OutOfBounds (naming the kernel, the operation and how far past the nearest argument it went)
before the access is made, and is kept for take_violation, so that a submission catching the
exception still fails.

A range is the storage an argument lives in (what the kernel could own: a view of its own
buffer may reach the rest of it), except for the tensors given to `checking` (the judge's
inputs), which sit between guard bands in a larger storage, maybe one shared by a call's
inputs: an argument pointing into one of them is bounded by that input's own span.
The interpreter hands CPU tensors' own storages to the kernel (no copy), so the ranges are the
real allocations. Patched on the class, over whatever is there (the runner's bfloat16 support
first), so both apply. Nothing here rebinds a module global after the patch (the guest's
tamper snapshot watches them): state lives in the mutable containers below.
"""
import contextlib

import numpy as np

_NO_ADDRESS = np.iinfo(np.uint64).max


class OutOfBounds(RuntimeError):
    pass


_launches = []  # per running launch: (kernel name, [(start, end, argument name)])
_armed = [0]  # > 0: launches are checked
_narrowed = {}  # storage address -> [(start, end)]: the judge's inputs, narrower than their storage
_found = []  # the first violation since the last take_violation


def _span_bytes(tensor) -> int:
    if tensor.numel() == 0:
        return 0
    return (1 + sum((size - 1) * step for size, step in zip(tensor.shape, tensor.stride()))) * tensor.element_size()


@contextlib.contextmanager
def checking(inputs=()):
    """Arms the check for the block; each of `inputs` bounds its storage to the tensor's span."""
    added = []
    for tensor in inputs:
        if not hasattr(tensor, "untyped_storage") or getattr(tensor, "device", None) is None or \
                tensor.device.type != "cpu":
            continue
        key = tensor.untyped_storage().data_ptr()
        _narrowed.setdefault(key, []).append((tensor.data_ptr(), tensor.data_ptr() + _span_bytes(tensor)))
        added.append(key)
    _armed[0] += 1
    try:
        yield
    finally:
        _armed[0] -= 1
        for key in added:
            _narrowed.pop(key, None)


def take_violation():
    """The first OutOfBounds raised since the last call (None if none); forgets it."""
    found = _found[0] if _found else None
    _found.clear()
    return found


def _storage_ranges(args, names) -> list:
    ranges = []

    def visit(arg, name):
        if isinstance(arg, (tuple, list)):
            for i, item in enumerate(arg):
                visit(item, f"{name}[{i}]")
        elif hasattr(arg, "untyped_storage"):
            storage = arg.untyped_storage()
            narrowed = _narrowed.get(storage.data_ptr())
            if narrowed:  # the input the argument points into (a call's inputs may share a region)
                own = [(start, end) for start, end in narrowed if start <= arg.data_ptr() < max(end, start + 1)]
                ranges.extend((start, end, name) for start, end in own or narrowed)
            else:
                ranges.append((storage.data_ptr(), storage.data_ptr() + storage.nbytes(), name))
        elif hasattr(arg, "base") and hasattr(arg.base, "untyped_storage"):  # a TensorDescriptor
            visit(arg.base, name)

    for arg, name in zip(args, names):
        visit(arg, name)
    return ranges


def _describe(address: int, size: int, ranges: list) -> str:
    """Where an address lies against the nearest argument, in that argument's words."""
    best = None
    for start, end, name in ranges:
        distance = address - (end - size) if address >= start else start - address
        if best is None or abs(distance) < best[0]:
            side = "past the end of" if address >= start else "before the start of"
            elements = (address - end) // size + 1 if address >= start else (start - address + size - 1) // size
            best = (abs(distance), f"{elements} element(s) {side} {name} ({(end - start) // size} elements)")
    return best[1] if best else "with no tensor argument in the launch"


def _check(operation: str, pointers, mask, size: int) -> None:
    kernel, ranges = _launches[-1]
    addresses = np.asarray(pointers, dtype=np.uint64)
    active = None if mask is None else np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)
    if active is None:
        if not addresses.size:
            return
        low, high = int(addresses.min()), int(addresses.max())
    else:
        if not active.any():
            return
        low, high = int(addresses.min(initial=_NO_ADDRESS, where=active)), int(addresses.max(initial=0, where=active))
    for start, end, _ in ranges:  # the usual case: the whole block inside one argument
        if start <= low and high + size <= end:
            return
    lanes = (addresses if active is None else addresses[active]).ravel().astype(np.int64)
    inside = np.zeros(lanes.shape, dtype=bool)
    for start, end, _ in ranges:
        inside |= (lanes >= start) & (lanes + size <= end)
    if inside.all():
        return
    outside = lanes[~inside]
    found = OutOfBounds(f"kernel {kernel}: {operation} of {outside.size} lane(s) out of bounds, the first "
                        f"{_describe(int(outside[0]), size, ranges)}")
    if not _found:
        _found.append(found)
    raise found


def _element_size(handle) -> int:
    element = handle.get_element_ty() if hasattr(handle, "get_element_ty") else None
    bits = getattr(element, "primitive_bitwidth", None) or 8
    return max(1, bits // 8)


def enable_memcheck(everywhere: bool = False) -> str:
    """Patches the interpreter in this process; '' when done, else why not. The check runs in
    `checking` blocks, or for every launch from now on when `everywhere`."""
    try:
        from triton.runtime import interpreter
    except Exception as exc:  # noqa: BLE001 - any import failure means no check
        return f"no Triton interpreter: {exc}"
    builder, executor = getattr(interpreter, "InterpreterBuilder", None), getattr(interpreter, "GridExecutor", None)
    needed = [(builder, "create_masked_load"), (builder, "create_masked_store"), (builder, "create_atomic_rmw"),
              (builder, "create_atomic_cas"), (executor, "_init_args_hst"), (executor, "__call__")]
    missing = [name for owner, name in needed if owner is None or not hasattr(owner, name)]
    if missing:
        return "this Triton's interpreter lacks " + ", ".join(missing)
    if everywhere:
        _armed[0] += 1
    if getattr(builder, "_keval_memcheck", False):
        return ""
    load, store, rmw, cas = (builder.create_masked_load, builder.create_masked_store, builder.create_atomic_rmw,
                             builder.create_atomic_cas)
    init_args, call = executor._init_args_hst, executor.__call__

    def masked_load(self, ptrs, mask, other, cache_policy, is_volatile):
        if _launches:
            _check("load", ptrs.data, mask.data, _element_size(ptrs))
        return load(self, ptrs, mask, other, cache_policy, is_volatile)

    def masked_store(self, ptrs, value, mask, cache_policy):
        if _launches:
            _check("store", ptrs.data, mask.data, _element_size(ptrs))
        return store(self, ptrs, value, mask, cache_policy)

    def atomic_rmw(self, rmwOp, ptr, val, mask, sem, scope):  # noqa: N803 - the interpreter's names
        if _launches:
            _check("atomic", ptr.data, mask.data, _element_size(ptr))
        return rmw(self, rmwOp, ptr, val, mask, sem, scope)

    def atomic_cas(self, ptr, cmp, val, sem, scope):
        if _launches:
            _check("atomic_cas", ptr.data, None, _element_size(ptr))
        return cas(self, ptr, cmp, val, sem, scope)

    def init_args_hst(self, args_dev, kwargs):
        args_hst, kwargs_hst = init_args(self, args_dev, kwargs)
        if _armed[0] > 0:
            names = list(getattr(self, "arg_names", [])) or [f"argument {i}" for i in range(len(args_hst))]
            ranges = _storage_ranges(list(args_hst) + list(kwargs_hst.values()),
                                     names[:len(args_hst)] + list(kwargs_hst))
            _launches.append((getattr(self.fn, "__name__", "?"), ranges))
        return args_hst, kwargs_hst

    def launch(self, *args, **kwargs):
        depth = len(_launches)
        try:
            return call(self, *args, **kwargs)
        finally:
            del _launches[depth:]

    builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
    builder.create_atomic_rmw, builder.create_atomic_cas = atomic_rmw, atomic_cas
    executor._init_args_hst, executor.__call__ = init_args_hst, launch
    builder._keval_memcheck = True
    return ""
