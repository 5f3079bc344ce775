"""Bounds checks for Triton's CPU interpreter, for the differential check only.

On the CPU a load past an input reads whatever lies there and a store one element past an
output the kernel allocated lands in the allocator's slack: no output shows it, so such a mutant
passes every case (docs/mutation.md). Here every launch records the byte ranges of the storages
its tensor arguments live in, and every active lane of a load, store or atomic must address an
element wholly inside one of them; the first that does not raises OutOfBounds, naming the
kernel, the operation and how far past the nearest argument it went.

The interpreter hands CPU tensors' own storages to the kernel (no copy), so the ranges are the
real allocations. Patched on the class, over whatever is there (the runner's bfloat16 support
first), so both apply.
"""
import numpy as np


class OutOfBounds(RuntimeError):
    pass


_launches = []  # per running launch: (kernel name, [(start, end, argument name)])


def _storage_ranges(args, names) -> list:
    ranges = []

    def visit(arg, name):
        if isinstance(arg, (tuple, list)):
            for i, item in enumerate(arg):
                visit(item, f"{name}[{i}]")
        elif hasattr(arg, "untyped_storage"):
            storage = arg.untyped_storage()
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
    if not _launches:
        return
    kernel, ranges = _launches[-1]
    addresses = np.asarray(pointers, dtype=np.uint64)
    if mask is not None:
        addresses = addresses[np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)]
    addresses = addresses.ravel().astype(np.int64) if addresses.size else addresses.ravel()
    if not addresses.size:
        return
    inside = np.zeros(addresses.shape, dtype=bool)
    for start, end, _ in ranges:
        inside |= (addresses >= start) & (addresses + size <= end)
    if inside.all():
        return
    outside = addresses[~inside]
    raise OutOfBounds(f"kernel {kernel}: {operation} of {outside.size} lane(s) out of bounds, the first "
                      f"{_describe(int(outside[0]), size, ranges)}")


def _element_size(handle) -> int:
    element = handle.get_element_ty() if hasattr(handle, "get_element_ty") else None
    bits = getattr(element, "primitive_bitwidth", None) or 8
    return max(1, bits // 8)


def enable_memcheck() -> str:
    """Patches the interpreter in this process; '' when done, else why not."""
    try:
        from triton.runtime import interpreter
    except Exception as exc:  # noqa: BLE001 - any import failure means no check
        return f"no Triton interpreter: {exc}"
    builder, executor = getattr(interpreter, "InterpreterBuilder", None), getattr(interpreter, "GridExecutor", None)
    needed = [(builder, "create_masked_load"), (builder, "create_masked_store"), (executor, "_init_args_hst"),
              (executor, "__call__")]
    missing = [name for owner, name in needed if owner is None or not hasattr(owner, name)]
    if missing:
        return "this Triton's interpreter lacks " + ", ".join(missing)
    if getattr(builder, "_keval_memcheck", False):
        return ""
    load, store, init_args, call = (builder.create_masked_load, builder.create_masked_store,
                                    executor._init_args_hst, executor.__call__)

    def masked_load(self, ptrs, mask, other, cache_policy, is_volatile):
        _check("load", ptrs.data, mask.data, _element_size(ptrs))
        return load(self, ptrs, mask, other, cache_policy, is_volatile)

    def masked_store(self, ptrs, value, mask, cache_policy):
        _check("store", ptrs.data, mask.data, _element_size(ptrs))
        return store(self, ptrs, value, mask, cache_policy)

    def init_args_hst(self, args_dev, kwargs):
        args_hst, kwargs_hst = init_args(self, args_dev, kwargs)
        names = list(getattr(self, "arg_names", [])) or [f"argument {i}" for i in range(len(args_hst))]
        ranges = _storage_ranges(list(args_hst) + list(kwargs_hst.values()), names[:len(args_hst)] + list(kwargs_hst))
        _launches.append((getattr(self.fn, "__name__", "?"), ranges))
        return args_hst, kwargs_hst

    def launch(self, *args, **kwargs):
        depth = len(_launches)
        try:
            return call(self, *args, **kwargs)
        finally:
            del _launches[depth:]

    builder.create_masked_load, builder.create_masked_store = masked_load, masked_store
    executor._init_args_hst, executor.__call__ = init_args_hst, launch
    builder._keval_memcheck = True
    return ""
