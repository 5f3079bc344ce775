"""Raw facts about a candidate output against the reference output (no verdicts here).

Values are compared in float64 on the reference's device; checks between two runs of one
candidate use the GPU whenever one side is there (a CPU compare of a 2^27-element output in
float64 took 10 s, the GPU takes milliseconds). Errors are taken over the
elements finite on both sides; `n_over_tol` counts those with |a-b| > atol + rtol*|ref|
plus every position whose NaN/Inf pattern differs from the reference (NaN vs NaN and
+Inf vs +Inf agree). Integer and bool outputs are compared exactly (tolerance 0). `first_bad`
names the first such element in row-major order (its index, its value and the expected one),
so a reason can show what went wrong where, not only how many.
The same rule is also sent as statistics the controller applies itself, so a stored result can
be judged again under a scaled tolerance: `max_tol_ratio` is the largest |a-b| / (atol +
rtol*|ref|) over elements finite on both sides (above 1 exactly where `n_over_tol` counts a
finite pair; infinite where a pair differs under a tolerance of 0), and `nan_disagree` /
`inf_disagree` count the positions whose NaN / Inf pattern differs from the reference's.
For the precision policy and the all-zero check, `mean_rel_err` is mean |a-b| / mean |ref| over
the elements finite on both sides (floating outputs), and `nonzero` / `ref_nonzero` count the
elements other than 0 on each side (NaN included).
Large outputs are compared in slices of CHUNK_ELEMENTS: whole, a KernelBench output of 2^31
float32 elements needed 64 GiB of float64 temporaries, more than the H200 has.
"""

import math

import torch

TINY = torch.finfo(torch.float64).tiny
ABOVE_ONE = math.nextafter(1.0, 2.0)
# float64 temporaries of 32 MiB each; of 256 MiB at 2^25 elements, a reference job comparing
# outputs of 2^26 elements peaked 2.1 GiB higher (CPU), and took longer
CHUNK_ELEMENTS = 1 << 22


class NonTensorOutput(TypeError):
    pass


def as_output_list(result) -> list:
    """A call's result as a list of tensors: one tensor -> [tensor]; tuple/list -> list."""
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        items = list(result)
    else:
        raise NonTensorOutput(f"the call returned {type(result).__name__}, expected a tensor or a tuple/list of tensors")
    for index, item in enumerate(items):
        if not isinstance(item, torch.Tensor):
            raise NonTensorOutput(f"output {index} is {type(item).__name__} ({str(item)[:80]}), expected a tensor")
    return items


def _is_exact(dtype: torch.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex)


def _count(mask: torch.Tensor) -> int:
    return int(mask.sum().item())


def _flat(t: torch.Tensor, complex_too: bool) -> torch.Tensor:
    t = t.detach()
    if complex_too and not t.is_complex():
        t = t.to(torch.complex128)
    return (torch.view_as_real(t) if t.is_complex() else t).reshape(-1)


def _slices(a: torch.Tensor, b: torch.Tensor, device):
    """Matching slices of a and b of equal shapes, flattened (complex as pairs of reals), each
    slice on device."""
    either_complex = a.is_complex() or b.is_complex()
    fa, fb = _flat(a, either_complex), _flat(b, either_complex)
    for start in range(0, fa.numel(), CHUNK_ELEMENTS):
        end = start + CHUNK_ELEMENTS
        yield fa[start:end].to(device), fb[start:end].to(device)


def _larger(best, value):
    return value if best is None else max(best, value)


def _number(value: float):
    """A float as JSON can carry it: NaN and infinities as strings."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return value


def _position(flat_index: int, shape: list) -> list:
    position = []
    for size in reversed(shape):
        position.append(flat_index % size if size else 0)
        flat_index = flat_index // size if size else 0
    return list(reversed(position))


def _first_bad(bad: torch.Tensor, a: torch.Tensor, b: torch.Tensor, offset: int, shape: list):
    where = int(bad.to(torch.int8).argmax().item())
    index = offset + where
    return {"flat_index": index, "position": _position(index, shape),
            "actual": _number(float(a[where].item())), "expected": _number(float(b[where].item()))}


def _tolerance_ratios(diff: torch.Tensor, allowed: torch.Tensor, over: torch.Tensor) -> torch.Tensor:
    """|a-b| / allowed per element: above 1 exactly where `over` (the elements the count calls
    outside tolerance, so the controller's `ratio > 1` and the count never disagree, whatever
    the division rounds to), at most 1 elsewhere. A difference under a tolerance of 0 is
    infinitely far outside it: no scale of 0 allows one. 0/0 (equal values, tolerance 0) is 0."""
    within = torch.where(allowed > 0, diff / allowed, torch.zeros_like(diff)).nan_to_num(nan=0.0).clamp(max=1.0)
    beyond = (diff / allowed).clamp(min=ABOVE_ONE)
    return torch.where(over, beyond, within)


def value_stats(out: torch.Tensor, ref: torch.Tensor, atol: float, rtol: float) -> dict:
    """Error facts for two tensors of the same shape."""
    exact = _is_exact(out.dtype) and _is_exact(ref.dtype)
    facts = {"max_abs_err": None, "max_rel_err": None, "n_over_tol": 0,
             "nan": 0, "inf": 0, "ref_nan": 0, "ref_inf": 0, "first_bad": None,
             "max_tol_ratio": None, "nan_disagree": 0, "inf_disagree": 0,
             "atol": 0.0 if exact else atol, "rtol": 0.0 if exact else rtol,
             "mean_rel_err": None, "nonzero": 0, "ref_nonzero": 0}
    error_sums = [0.0, 0.0]  # sum |a-b| and sum |b| over pairs finite on both sides
    shape = list(out.shape) + ([2] if out.is_complex() or ref.is_complex() else [])
    offset = 0
    for o, r in _slices(out, ref, ref.device):
        a, b = o.to(torch.float64), r.to(torch.float64)
        a_finite, b_finite = torch.isfinite(a), torch.isfinite(b)
        both = a_finite & b_finite
        diff = torch.where(both, (a - b).abs(), torch.zeros_like(a))
        if exact:
            over = both & (o.to(torch.int64) != r.to(torch.int64))
            ratios = torch.where(over, torch.full_like(a, math.inf), torch.zeros_like(a))
        else:
            allowed = atol + rtol * b.abs()
            over = both & (diff > allowed)
            ratios = torch.where(both, _tolerance_ratios(diff, allowed, over), torch.zeros_like(a))
        if bool(both.any().item()):
            rel = torch.where(both, diff / b.abs().clamp_min(TINY), torch.zeros_like(a))
            facts["max_abs_err"] = _larger(facts["max_abs_err"], float(diff.max().item()))
            facts["max_rel_err"] = _larger(facts["max_rel_err"], float(rel.max().item()))
            facts["max_tol_ratio"] = _larger(facts["max_tol_ratio"], float(ratios.max().item()))
            error_sums[0] += float(diff.sum().item())
            error_sums[1] += float(torch.where(both, b.abs(), torch.zeros_like(b)).sum().item())
        # Non-finite positions agree only when both are NaN or both are the same infinity.
        a_nan, b_nan = torch.isnan(a), torch.isnan(b)
        same_special = (a_nan & b_nan) | (~a_finite & ~b_finite & (a == b))
        disagree = ~both & ~same_special
        # one side NaN: a NaN disagreement; the rest of `disagree` has an infinity on one side,
        # facing a finite value or the other infinity
        nan_disagree = _count(a_nan ^ b_nan)
        facts["nan_disagree"] += nan_disagree
        facts["inf_disagree"] += _count(disagree) - nan_disagree
        bad = over | disagree
        bad_count = _count(bad)
        if bad_count and facts["first_bad"] is None:
            facts["first_bad"] = _first_bad(bad, a, b, offset, shape)
        offset += a.numel()
        facts["n_over_tol"] += bad_count
        facts["nan"] += _count(torch.isnan(a))
        facts["inf"] += _count(torch.isinf(a))
        facts["ref_nan"] += _count(torch.isnan(b))
        facts["ref_inf"] += _count(torch.isinf(b))
        facts["nonzero"] += _count(a != 0)  # NaN is not 0
        facts["ref_nonzero"] += _count(b != 0)
    if not exact:
        facts["mean_rel_err"] = _mean_relative(*error_sums)
    return facts


def _mean_relative(abs_err_sum: float, abs_ref_sum: float):
    """mean |a-b| / mean |b| from their sums over the same elements; None where |b| sums to 0
    (or no pair was finite)."""
    if not abs_ref_sum > 0:
        return None
    return _number(abs_err_sum / abs_ref_sum)


def mean_relative_error(out: torch.Tensor, ref: torch.Tensor):
    """mean |out - ref| / mean |ref| over the elements finite on both sides, in float64; "inf"
    where out is not finite at a position where ref is finite or out and ref are another NaN/Inf,
    None where |ref| sums to 0 or the shapes differ."""
    if out.shape != ref.shape:
        return None
    sums = [0.0, 0.0]
    for o, r in _slices(out, ref, shared_device(out, ref)):
        a, b = o.to(torch.float64), r.to(torch.float64)
        both = torch.isfinite(a) & torch.isfinite(b)
        same_special = (torch.isnan(a) & torch.isnan(b)) | (~both & (a == b))
        if bool((~both & ~same_special).any().item()):
            return "inf"
        sums[0] += float(torch.where(both, (a - b).abs(), torch.zeros_like(a)).sum().item())
        sums[1] += float(torch.where(both, b.abs(), torch.zeros_like(b)).sum().item())
    return _mean_relative(*sums)


def compare_output(index: int, out: torch.Tensor, ref: torch.Tensor, atol: float, rtol: float) -> dict:
    facts = {
        "index": index,
        "shape": list(out.shape),
        "ref_shape": list(ref.shape),
        "dtype": str(out.dtype).replace("torch.", ""),
        "ref_dtype": str(ref.dtype).replace("torch.", ""),
        "stride": list(out.stride()),
        "ref_stride": list(ref.stride()),
        "numel": out.numel(),
        "max_abs_err": None, "max_rel_err": None, "n_over_tol": None,
        "nan": None, "inf": None, "ref_nan": None, "ref_inf": None,
        "max_tol_ratio": None, "nan_disagree": None, "inf_disagree": None,
    }
    if out.shape != ref.shape:
        return facts
    facts.update(value_stats(out, ref, float(atol), float(rtol)))
    return facts


def compare_outputs(outs: list, refs: list, atol: float, rtol: float) -> list:
    """Facts for each index present on both sides (n_outputs tells the controller the rest)."""
    return [compare_output(i, out, ref, atol, rtol) for i, (out, ref) in enumerate(zip(outs, refs))]


def changed_elements(first: torch.Tensor, second: torch.Tensor):
    """Mask of the elements where two outputs of the same call differ (NaN equals NaN); None
    when they cannot be compared element by element."""
    if first.shape != second.shape or first.dtype != second.dtype:
        return None
    return ~_same_elements(*on_shared_device(first.detach(), second.detach()))


def not_judged_where_undefined(outs: list, refs: list, undefined: list) -> list:
    """The candidate's outputs with the reference's values where the reference's own output is
    undefined (see changed_elements), so those elements are not judged. Outputs whose shape or
    dtype differs from the reference's are left as they are (the judge reports that)."""
    judged = []
    for index, out in enumerate(outs):
        mask = undefined[index] if index < len(undefined) else None
        ref = refs[index] if index < len(refs) else None
        if (mask is None or ref is None or not isinstance(out, torch.Tensor) or out.shape != ref.shape
                or out.dtype != ref.dtype or not bool(mask.any().item())):
            judged.append(out)
            continue
        kept, ref = on_shared_device(out.detach(), ref.detach())
        judged.append(torch.where(mask.to(kept.device), ref, kept))
    return judged


def differs_where_defined(judged_first: list, rerun: list, refs: list, undefined: list) -> bool:
    """Whether the candidate's determinism re-run differs from its first call anywhere the
    reference is defined. judged_first has been through not_judged_where_undefined already;
    the re-run goes through it here, so the elements the reference leaves undefined are equal
    in both."""
    if len(judged_first) != len(rerun):
        return True
    judged_rerun = not_judged_where_undefined(rerun, refs, undefined)
    return not all(tensors_identical(x, y) for x, y in zip(judged_first, judged_rerun))


def shared_device(a: torch.Tensor, b: torch.Tensor) -> torch.device:
    """Where a and b are compared: the GPU when either is there, else the CPU."""
    return a.device if a.device.type != "cpu" else b.device


def on_shared_device(a: torch.Tensor, b: torch.Tensor):
    """a and b on one device: shared_device's."""
    if a.device == b.device:
        return a, b
    device = shared_device(a, b)
    return a.to(device), b.to(device)


def _same_elements(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Elementwise equality of two tensors of one shape, dtype and device, NaN equal to NaN."""
    if a.element_size() == 1 and a.dtype.is_floating_point:
        # float8 has no equality kernels: compare the bytes (NaN patterns included)
        return a.view(torch.uint8) == b.view(torch.uint8)
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return (a == b) | (torch.isnan(a) & torch.isnan(b))
    return a == b


def within_tolerance(out: torch.Tensor, ref: torch.Tensor, atol: float, rtol: float) -> bool:
    """value_stats' verdict without its facts: every element within atol + rtol * |ref| of ref,
    non-finite values equal (NaN to NaN, an infinity to the same one), exact dtypes equal. For a
    check of every timed call (the warden's), in float32 unless a side is float64: a tenth of
    value_stats' passes over memory, one synchronisation a slice."""
    if out.shape != ref.shape:
        return False
    exact = _is_exact(out.dtype) and _is_exact(ref.dtype)
    wide = torch.float64 in (out.dtype, ref.dtype) or torch.complex128 in (out.dtype, ref.dtype)
    for o, r in _slices(out, ref, ref.device):
        if exact:
            if not torch.equal(o.to(torch.int64), r.to(torch.int64)):
                return False
            continue
        as_type = torch.float64 if wide else torch.float32
        if not bool(torch.isclose(o.to(as_type), r.to(as_type), rtol=rtol, atol=atol, equal_nan=True).all()):
            return False
    return True


def tensors_identical(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape, dtype and values, NaN equal to NaN (used for mutation and determinism)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    a, b = on_shared_device(a, b)
    float8 = a.element_size() == 1 and a.dtype.is_floating_point
    if not float8 and torch.equal(a, b):  # the common case, without an elementwise mask
        return True
    return bool(_same_elements(a, b).all().item())


def max_abs_diff(outs_a: list, outs_b: list):
    """Largest |a-b| over elements finite in both, across outputs of equal shapes (or None)."""
    best = None
    for a, b in zip(outs_a, outs_b):
        if a.shape != b.shape or a.numel() == 0:
            continue
        for sa, sb in _slices(a, b, shared_device(a, b)):
            fa, fb = sa.to(torch.float64), sb.to(torch.float64)
            both = torch.isfinite(fa) & torch.isfinite(fb)
            if bool(both.any().item()):
                best = _larger(best, float(torch.where(both, (fa - fb).abs(), torch.zeros_like(fa)).max().item()))
    return best
