"""Gives Triton's CPU interpreter a real bfloat16 type (numpy's, from ml_dtypes).

The interpreter keeps bfloat16 values as their raw uint16 bit patterns, so numpy adds,
multiplies, compares and reduces the bit patterns as integers: a plain load, add and store of
a bfloat16 tensor gives NaNs and wrong values, and tl.dot multiplies bit patterns
(triton-lang/triton#11584). Its fp32 -> bfloat16 conversion truncates where the GPU rounds to
nearest even. Correct kernels would fail their bfloat16 cases on the CPU only.

Here bfloat16 tensors hold ml_dtypes.bfloat16 values instead, so numpy's own arithmetic
(rounded to bfloat16 after each operation, as on the GPU) applies. Only the places that cannot
take such a numpy dtype are wrapped: the C++ load/store/atomics (given the bit patterns),
conversions (numpy's round-to-nearest-even, or truncation when a kernel asks for rtz) and the
sum of a bfloat16 block (a tree of bfloat16 additions, as the GPU's reduction does, not a
running bfloat16 sum that drifts on long rows).

Everything is looked up with guards against Triton versions whose interpreter is laid out
otherwise; then nothing is changed and the reason is returned.
"""

import numpy as np

_MARK = "_keval_real_bfloat16"


def enable_real_bfloat16() -> str:
    """Patches the interpreter in this process; '' when bfloat16 works, else why it was left alone."""
    try:
        import ml_dtypes
        from triton.runtime import interpreter
        import triton.language as tl
    except Exception as exc:  # ml_dtypes missing (scripts/install-deps.sh installs it)
        return f"bfloat16 left to the interpreter's uint16 storage: {type(exc).__name__}: {exc}"
    builder = getattr(interpreter, "InterpreterBuilder", None)
    if getattr(builder, _MARK, False):
        return ""
    missing = _missing_parts(interpreter, builder)
    if missing:
        return "bfloat16 left to the interpreter: this Triton's interpreter has no " + ", ".join(missing)
    patch = _Patch(interpreter, tl, np.dtype(ml_dtypes.bfloat16))
    patch.apply()
    problem = patch.self_check()
    if problem:
        patch.undo()
        return "bfloat16 left to the interpreter: " + problem
    setattr(builder, _MARK, True)
    return ""


_BUILDER_METHODS = ("create_masked_load", "create_masked_store", "cast_impl", "create_fp_to_fp",
                    "create_atomic_rmw", "create_atomic_cas")


def _missing_parts(interpreter, builder) -> list:
    missing = [name for name in ("_get_np_dtype", "_interpreter", "_ir", "TensorHandle", "ReduceOps")
               if not hasattr(interpreter, name)]
    if builder is None:
        return missing + ["InterpreterBuilder"]
    missing += [f"InterpreterBuilder.{name}" for name in _BUILDER_METHODS if not hasattr(builder, name)]
    native = getattr(interpreter, "_interpreter", None)
    missing += [f"_interpreter.{name}" for name in ("load", "store") if not hasattr(native, name)]
    if not hasattr(getattr(interpreter, "ReduceOps", None), "sum"):
        missing.append("ReduceOps.sum")
    return missing


class _Patch:
    """The replacements; each falls through to Triton's own code for every other dtype."""

    def __init__(self, interpreter, tl, bf16):
        self.interpreter = interpreter
        self.tl = tl
        self.bf16 = bf16
        self.bits = np.dtype(np.uint16)
        self.Handle = interpreter.TensorHandle
        self.native = interpreter._interpreter

    def is_bf16(self, tt_type) -> bool:
        return getattr(tt_type, "scalar", None) == self.tl.bfloat16

    def apply(self) -> None:
        interpreter, builder = self.interpreter, self.interpreter.InterpreterBuilder
        self.replaced = [(interpreter, "_get_np_dtype", self.np_dtype),
                         (builder, "create_masked_load", self.masked_load),
                         (builder, "create_masked_store", self.masked_store),
                         (builder, "cast_impl", self.cast),
                         (builder, "create_fp_to_fp", self.fp_to_fp),
                         (builder, "create_atomic_rmw", self.atomic_rmw),
                         (builder, "create_atomic_cas", self.atomic_cas),
                         (interpreter.ReduceOps, "sum", self.reduce_sum)]
        self.originals = [(owner, name, getattr(owner, name)) for owner, name, _ in self.replaced]
        for owner, name, wrap in self.replaced:
            setattr(owner, name, wrap(getattr(owner, name)))

    def undo(self) -> None:
        for owner, name, original in self.originals:
            setattr(owner, name, original)

    def self_check(self) -> str:
        """Loads, adds, widens, narrows and stores a few values through the patched builder: a
        Triton whose builder calls differ from the ones assumed here fails this, not a kernel."""
        tl, Handle = self.tl, self.Handle
        x = np.array([1.5, -2.25, 3.0, 0.1], dtype=self.bf16)
        y = np.array([0.25, 1.0, -7.5, 0.2], dtype=self.bf16)
        out = np.zeros(4, dtype=self.bf16)
        steps = np.arange(4, dtype=np.uint64) * np.uint64(self.bf16.itemsize)

        def pointers(array):
            return Handle(np.uint64(array.ctypes.data) + steps, tl.pointer_type(tl.bfloat16))

        mask = Handle(np.ones(4, dtype=bool), tl.int1)
        try:
            builder = self.interpreter.InterpreterBuilder()
            a = builder.create_masked_load(pointers(x), mask, None, None, False)
            b = builder.create_masked_load(pointers(y), mask, None, None, False)
            total = builder.create_fadd(a, b)
            round_trip = builder.create_fp_trunc(builder.create_fp_ext(total, tl.float32), tl.bfloat16)
            builder.create_masked_store(pointers(out), round_trip, mask, None)
        except Exception as exc:
            return f"self-check raised {type(exc).__name__}: {exc}"
        if not np.array_equal(out, x + y):
            return f"self-check stored {out.tolist()} for {(x + y).tolist()}"
        return ""

    def np_dtype(self, original):
        def _get_np_dtype(tt_dtype):
            # a pointer's .scalar is itself, so pointers to bfloat16 stay uint64 addresses
            return self.bf16 if self.is_bf16(tt_dtype) else original(tt_dtype)
        return _get_np_dtype

    def masked_load(self, original):
        patch = self

        def create_masked_load(builder, ptrs, mask, other, cache_policy, is_volatile):
            if not patch.is_bf16(ptrs.get_element_ty()):
                return original(builder, ptrs, mask, other, cache_policy, is_volatile)
            if other is None:
                other_bits = np.zeros(ptrs.data.shape, dtype=patch.bits)
            else:
                other_bits = np.asarray(other.data).astype(patch.bf16).view(patch.bits)
            bits = patch.native.load(ptrs.data, mask.data, other_bits, patch.bits)
            return patch.Handle(bits.view(patch.bf16), patch.tl.bfloat16)
        return create_masked_load

    def masked_store(self, original):
        patch = self

        def create_masked_store(builder, ptrs, value, mask, cache_policy):
            if value.data.dtype != patch.bf16:
                return original(builder, ptrs, value, mask, cache_policy)
            return patch.native.store(ptrs.data, value.data.view(patch.bits), mask.data)
        return create_masked_store

    def cast(self, original):
        patch = self

        def cast_impl(builder, src, dst_type):
            if not (patch.is_bf16(src.dtype) or patch.is_bf16(dst_type)):
                return original(builder, src, dst_type)
            # numpy's casts round to nearest even (as the GPU's cvt.rn does) and keep NaN a NaN
            dst_np = patch.interpreter._get_np_dtype(dst_type)
            return patch.Handle(np.asarray(src.data).astype(dst_np), dst_type.scalar)
        return cast_impl

    def fp_to_fp(self, original):
        patch = self
        plain_floats = (self.tl.float16, self.tl.float32, self.tl.float64)

        def create_fp_to_fp(builder, src, dst_type, rounding_mode):
            src_type, dst = src.dtype.scalar, dst_type.scalar
            widening = patch.is_bf16(src_type) and dst in plain_floats
            narrowing = patch.is_bf16(dst) and src_type in plain_floats
            if not (widening or narrowing):  # float8 <-> bfloat16 work on bit patterns already
                return original(builder, src, dst_type, rounding_mode)
            if narrowing and rounding_mode == patch.interpreter._ir.ROUNDING_MODE.RTZ:
                return patch.Handle(patch.truncate_to_bf16(src.data), dst)
            return builder.cast_impl(src, dst_type)
        return create_fp_to_fp

    def truncate_to_bf16(self, data):
        as_f32 = np.asarray(data).astype(np.float32)
        kept = (as_f32.view(np.uint32) >> np.uint32(16)).astype(self.bits).view(self.bf16)
        # dropping the low bits would turn a NaN whose payload sits there into an infinity
        return np.where(np.isnan(as_f32), np.array(np.nan, dtype=self.bf16), kept)

    def atomic_rmw(self, original):
        patch = self
        # the only bfloat16 read-modify-write Triton accepts (xchg, max and min refuse bfloat16)
        combine = {self.interpreter._ir.ATOMIC_OP.FADD: np.add}

        def create_atomic_rmw(builder, rmw_op, ptr, val, mask, sem, scope):
            if val.data.dtype != patch.bf16 or rmw_op not in combine:
                return original(builder, rmw_op, ptr, val, mask, sem, scope)
            return patch.Handle(patch.read_modify_write(ptr, val, mask, combine[rmw_op]), val.dtype.scalar)
        return create_atomic_rmw

    def read_modify_write(self, ptr, val, mask, combine):
        """One element at a time: the interpreter runs one program at a time, so this is atomic,
        and lanes of one call that share an address each see the previous lane's result."""
        shape = ptr.data.shape
        ptrs = np.broadcast_to(ptr.data, shape).reshape(-1)
        vals = np.broadcast_to(val.data, shape).reshape(-1)
        active = np.broadcast_to(mask.data, shape).reshape(-1)
        old = np.zeros(ptrs.size, dtype=self.bf16)
        one = np.ones(1, dtype=bool)
        for i in np.flatnonzero(active):
            address = ptrs[i:i + 1]
            current = self.native.load(address, one, np.zeros(1, self.bits), self.bits).view(self.bf16)
            old[i] = current[0]
            updated = combine(current, vals[i:i + 1]).astype(self.bf16)
            self.native.store(address, updated.view(self.bits), one)
        return old.reshape(shape)

    def atomic_cas(self, original):
        patch = self

        def as_bits(handle):
            return patch.Handle(np.asarray(handle.data).astype(patch.bf16).view(patch.bits), patch.tl.uint16)

        def create_atomic_cas(builder, ptr, cmp, val, sem, scope):
            if val.data.dtype != patch.bf16:
                return original(builder, ptr, cmp, val, sem, scope)
            # compares bit patterns, as the GPU's atom.cas does
            result = original(builder, ptr, as_bits(cmp), as_bits(val), sem, scope)
            return patch.Handle(result.data.view(patch.bf16), cmp.dtype.scalar)
        return create_atomic_cas

    def reduce_sum(self, original):
        patch = self

        def sum_as_a_tree(reduce_ops, input):
            if input.handle.data.dtype != patch.bf16:
                return original(reduce_ops, input)
            data = _tree_sum(input.handle.data, reduce_ops.axis, reduce_ops.keep_dims)
            return reduce_ops.to_tensor(data, input.dtype)
        return sum_as_a_tree


def _tree_sum(data, axis, keep_dims):
    """Sums halves pairwise, each partial sum rounded to the data's dtype, like a GPU reduction."""
    if axis is None:
        total = _tree_sum(data.reshape(-1), 0, False)
        return total.reshape((1,) * data.ndim) if keep_dims else total[()]
    values = np.moveaxis(data, axis, -1)
    if values.shape[-1] == 0:
        values = np.zeros(values.shape[:-1] + (1,), dtype=data.dtype)
    while values.shape[-1] > 1:
        if values.shape[-1] % 2:  # adding a zero is exact
            values = np.concatenate([values, np.zeros(values.shape[:-1] + (1,), dtype=data.dtype)], axis=-1)
        half = values.shape[-1] // 2
        values = values[..., :half] + values[..., half:]
    total = values[..., 0]
    return np.expand_dims(total, axis) if keep_dims else total
