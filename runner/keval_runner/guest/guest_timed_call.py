"""The guest's side of a call the warden times from outside: `arm` maps the buffers the warden
refills for each sample, `go` calls the submission on them: once on each of the sample's sets
(K of one layout, one after another: warden/timed_calls.py says why).

CPU: the warden's clock runs from its `go` to this process stopped (SIGSTOP) after the answer;
it then reads the outputs itself (process_vm_readv) and compares them with the reference's on
the same, freshly drawn inputs (warden_timed_candidate.py). The answer says where the outputs
lie in this process's memory.

CUDA: the call is enqueued behind a wait on the warden's `gate` word, its outputs copied into
the warden's output slots, then the `done` word written, all on this process's stream, before
the GPU runs any of it (warden_gpu_clock.py): the warden's events around its gate and the
`done` it waits for are the sample, and it copies the slots right after. The words are host
memory both processes map (clock_words.py).

Nothing this process says is a time or a verdict: outputs that are not the right ones (at the
address it names, or in the slots when `done` is written) are a mismatch. The outputs stay
referenced here until the next `go` so their memory stays theirs while the warden reads it.
"""

import os

import torch

from ..device import stream_flags
from ..device.clock_words import ClockWords
from ..compare.compare import NonTensorOutput, as_output_list
from ..handoff.shared_args import dtype_name

CALIBRATION_KEY = "calibration"  # armed before the submission loads: the round trip's own cost


def null_call(*args):
    """The calibration's call: its first input handed back, on a GPU through one kernel (a timed
    call's kernels need the GPU to switch to this process's context; see gpu_timed_guest.py)."""
    first = args[0]
    if isinstance(first, torch.Tensor) and first.is_cuda:
        return first.add(0)
    return first


def _outputs_or_none(result):
    try:
        return as_output_list(result)
    except NonTensorOutput:
        return None


def describe_outputs(outputs: list) -> list:
    """Where each output's elements lie: the address of element 0, dtype, shape, strides."""
    described = []
    for t in outputs:
        described.append({"address": t.data_ptr(), "dtype": dtype_name(t.dtype), "shape": list(t.shape),
                          "stride": list(t.stride()), "device": t.device.type})
    return described


class TimedCalls:
    """The armed buffers of each timed case and the outputs of its last call."""

    def __init__(self, opener):
        self.opener = opener
        self.armed = {}  # case key -> each call's arguments in the warden's shared buffers
        self.imports = {}  # case key -> device mappings of those buffers
        self.slots = {}  # case key -> the warden's output slots of each call (CUDA)
        self.last_outputs = None
        self.gate = None  # CUDA: the device address of the warden's gate word; `done` is the next word
        self.words = None

    def open_gate(self, fds: list) -> None:
        """Maps the warden's two clock words (CUDA): gate, then done."""
        if len(fds) != 1:
            raise ValueError(f"the clock words come as one descriptor, not {len(fds)}")
        if self.words is not None:
            torch.cuda.current_stream().synchronize()
            self.words.close()
        # its own copy of the descriptor: the caller closes the ones it received, after us
        self.words = ClockWords(os.dup(fds[0]))
        self.words.close_fd()
        self.gate = self.words.register()
        if torch.cuda.is_available():
            # the calibration's kernel loaded now: a kernel loaded lazily behind the gate waits
            # for the stream, so its call could not answer (bench/cross_process_sync.py)
            null_call(torch.zeros(1, device=torch.cuda.current_device()))
            torch.cuda.current_stream().synchronize()

    def arm(self, key: str, fields: dict, fds: list, slots: int = 0, calls: int = 1) -> None:
        """The arguments of `calls` calls (sets of one layout, one after another), and on CUDA
        the last `slots` tensors as their output slots (each call's in turn)."""
        self.drop(key)  # armed anew when a value that is no tensor changes
        imported = []
        args = self.opener.open(fields, fds, imported)
        self.imports[key] = imported
        calls = int(calls)
        if calls < 1 or slots % calls or (len(args) - slots) % calls:
            raise ValueError(f"{len(args)} arguments with {slots} slots do not split into {calls} calls")
        if slots:
            args, slot_list = args[:-slots], list(args[-slots:])
            self.slots[key] = _split(slot_list, calls)
        self.armed[key] = [tuple(part) for part in _split(list(args), calls)]

    def go(self, key: str, entry, n=None) -> dict:
        """The reply to one timed sample, every armed call of the key in turn: their outputs'
        places (the calls' lists one after another), or `ok: false` with the error. With `n`
        (CUDA), the calls behind the gate's n-th opening and `done` set to n after them."""
        self.last_outputs = None
        if n is not None and self.gate is not None:
            return self._go_gated(key, entry, int(n))
        results = []
        with torch.no_grad():
            for args in self.armed[key]:
                results.append(entry(*args))
        self.last_outputs = results  # kept alive: the warden reads their memory after this reply
        described = []
        for result in results:
            outputs = _outputs_or_none(result)
            if outputs is None:
                return {"ok": True, "outputs": None}
            described += describe_outputs(outputs)
        return {"ok": True, "outputs": described}

    def _go_gated(self, key: str, entry, n: int) -> dict:
        stream = torch.cuda.current_stream()
        stream_flags.wait_at_least(stream, self.gate, n)
        results, copied = [], True
        try:
            with torch.no_grad():
                for index, args in enumerate(self.armed[key]):
                    result = entry(*args)
                    results.append(result)
                    with torch.cuda.stream(stream):  # the call may have made another stream current
                        copied = self._into_slots(key, index, result) and copied
        finally:  # a failed call still ends: the warden's stream waits for `done`
            stream_flags.write(stream, self.gate + 4, n)
        self.last_outputs = results
        return {"ok": True, "outputs": "slots" if copied else None}

    def _into_slots(self, key: str, index: int, result) -> bool:
        """Copies call `index`'s outputs into its slots on this stream; False when they do not
        fit them (another count, shape or dtype: the warden's check fails them)."""
        slots = self.slots[key][index] if key in self.slots else []  # none armed: the calibration
        outputs = _outputs_or_none(result)
        if outputs is None or len(outputs) != len(slots):
            return False
        if any(o.shape != s.shape or o.dtype != s.dtype or o.device != s.device for o, s in zip(outputs, slots)):
            return False
        for slot, output in zip(slots, outputs):
            slot.copy_(output)
        return True

    def drop(self, key: str) -> None:
        self.armed.pop(key, None)
        self.slots.pop(key, None)
        self.last_outputs = None
        for mapped in self.imports.pop(key, []):
            mapped.close()


def _split(items: list, parts: int) -> list:
    """`items` cut into `parts` runs of equal length, in order."""
    size = len(items) // parts
    return [items[i * size:(i + 1) * size] for i in range(parts)]
