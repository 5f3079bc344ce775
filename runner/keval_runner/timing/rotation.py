"""Input sets rotated through timing, and the check of timed outputs against first outputs.

The sets are built fresh from the case's seeds (whose correctness calls succeeded) and, on
CUDA, from further derived seeds until their inputs exceed twice the L2 size (at most
MAX_SETS). Before each call (outside the timed region) the *contents* of a set are copied into
the buffers the call uses, so the same addresses see different inputs over time: an output
cache keyed on data_ptr() then returns a stale output, which the timed-output check sees. The
copy also undoes any in-place change of the previous call.

Each set has buffers of its own, unless one set's inputs are large (`one_buffer_bytes`): then
the contents of every set take turns in the first set's buffers, and the other sets are only
read. Each contender then holds its sets once and one copy of the first, not every set twice:
a KernelBenchX case of 15 GiB inputs, two seeds, timed against the golden needed 120 GiB
that way, more than an H200 has. The L2 flush before each sample keeps the caches cold either
way; placement matters to kernels of a few µs, whose inputs are small.
"""

import torch

from ..checks.checks import map_tensors, storage_span
from ..compare.compare import NonTensorOutput, as_output_list, tensors_identical
from ..inputs.inputs import tensors_in
from ..handoff.output_files import plain_copy
from .timing import FALLBACK_L2_BYTES, l2_bytes

MAX_SETS = 16
DERIVED_SEED_STEP = 0x9E3779B1


def derived_seeds(seeds: list, count: int) -> list:
    """count further seeds made from the case's seeds, distinct from them."""
    base = seeds[-1] if seeds else 0
    out, k = [], 1
    taken = set(seeds)
    while len(out) < count:
        seed = (base + DERIVED_SEED_STEP * k) & 0x7FFFFFFF
        k += 1
        if seed not in taken:
            taken.add(seed)
            out.append(seed)
    return out


def rotation_set_count(seeds: int, set_bytes: int, target: int) -> int:
    """How many input sets a timed case rotates: one per seed, then derived ones while the
    sets hold no more than `target` bytes together (twice the L2 on CUDA; 0: none derived),
    up to MAX_SETS in all (the seeds' sets are all kept even beyond it)."""
    wanted = min(MAX_SETS, max(seeds, -(-target // max(1, set_bytes)) + 1)) if target else seeds
    count = seeds
    while count < wanted and count * set_bytes <= target:
        count += 1
    return count


def one_buffer_bytes(device: torch.device, request: dict) -> int:
    """Input bytes of one set from which the sets share one set's buffers: the request's
    `rotation_buffer_bytes`, else twice the L2 (the flush's size) on CUDA, 128 MiB on the CPU."""
    given = request.get("rotation_buffer_bytes")
    if given:
        return int(given)
    return 2 * (l2_bytes(device) if device.type == "cuda" else FALLBACK_L2_BYTES)


def rotation_buffers(set_bytes: int, limit: int):
    """How many sets keep buffers of their own: 1 for sets of `limit` bytes or more, else all
    (None)."""
    return 1 if set_bytes >= limit else None


def rotation_bytes(set_sizes: list, buffers) -> int:
    """What one contender's InputRotation holds: every set, and a copy of each set that keeps
    buffers of its own (`buffers` as rotation_buffers gives it: None for all)."""
    return sum(set_sizes) + sum(set_sizes[:buffers or len(set_sizes)])


def _signature(args) -> list:
    return [(tuple(t.shape), tuple(t.stride()), t.dtype, t.device) for t in tensors_in(args)]


def outputs_identical(expected: list, result) -> bool:
    """Bitwise equality (NaN equal to NaN) of a call's result with outputs recorded earlier."""
    try:
        outputs = as_output_list(result)
    except NonTensorOutput:
        return False
    return len(outputs) == len(expected) and all(tensors_identical(e, o) for e, o in zip(expected, outputs))


class InputRotation:
    """sets: list of (seed, args); expected: seed -> list of tensors (first outputs, kept on the
    device they were made on: a timed-output check then copies nothing between host and GPU), or
    None for a set whose first output is still to be made (see record_first_outputs).
    buffers: how many sets keep buffers of their own (None: all; fewer only when every set has
    the same layout); the other sets are never passed to a call, only copied from."""

    def __init__(self, entry, sets: list, expected: dict, buffers=None, values=None):
        self.entry = entry
        self.seeds = [seed for seed, _ in sets]
        self.arguments = [args for _, args in sets]
        signatures = [_signature(args) for args in self.arguments]
        self.shared_layout = all(s == signatures[0] for s in signatures)
        count = len(sets) if buffers is None or not self.shared_layout else max(1, min(int(buffers), len(sets)))
        self.buffers = self.arguments[:count]
        # Each set's values: a buffer's copied aside (as copies of the storage its tensors reach,
        # so any layout, expanded or transposed included, can be written back into same-layout
        # buffers), or `values` (one set of the same layout, only read: a baseline's drawn set,
        # timing_job.py), none copied; a set without buffers keeps its own, which no call touches.
        if values is not None:
            self.contents = [[storage_span(t) for t in tensors_in(values)]]
        else:
            self.contents = [[storage_span(t).clone() for t in tensors_in(args)] for args in self.buffers]
        self.contents += [[storage_span(t) for t in tensors_in(args)] for args in self.arguments[count:]]
        self.expected = dict(expected)
        self.current = None  # index of the content set the last prepared call uses
        self.checks = 0
        self.mismatches = 0

    def __len__(self) -> int:
        return len(self.arguments)

    def _args_for(self, buffer_index: int, content_index: int):
        """The arguments of set content_index, its tensors the buffers of set buffer_index
        refilled with its values (the sets share one layout whenever the two differ)."""
        targets = iter(tensors_in(self.buffers[buffer_index]))
        values = iter(self.contents[content_index])

        def refill(_):
            target = next(targets)
            storage_span(target).copy_(next(values))
            return target

        # The content set's own arguments, its tensors swapped for the refilled buffers.
        return map_tensors(self.arguments[content_index], refill)

    def prepare(self, k: int):
        count = len(self.buffers)
        buffer_index = k % count
        content_index = (buffer_index + k // count) % len(self.contents) if self.shared_layout else buffer_index
        with torch.no_grad():
            args = self._args_for(buffer_index, content_index)
        self.current = content_index
        entry = self.entry

        def call():
            return entry(*args)
        return call

    def record_first_outputs(self) -> None:
        """Calls the candidate once (untimed) on each set without a recorded first output."""
        for index, seed in enumerate(self.seeds):
            if self.expected.get(seed) is not None:
                continue
            with torch.no_grad():
                result = self.entry(*self._args_for(index % len(self.buffers), index))
                outputs = as_output_list(result)
                self.expected[seed] = [plain_copy(o) for o in outputs]

    def observer(self, interval: int):
        """observe(i, output) for interleaved_timing.measure: checks every interval-th timed call."""
        def observe(i, output):
            if (i + 1) % interval:
                return
            expected = self.expected.get(self.seeds[self.current])
            if expected is None:
                return
            self.checks += 1
            if not outputs_identical(expected, output):
                self.mismatches += 1
        return observe
