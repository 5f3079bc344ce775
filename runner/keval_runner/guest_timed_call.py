"""The guest's side of a call the warden times from outside (CPU mode): `arm` maps the buffers
the warden refills before each call, `go` calls the submission on them and answers with where
its outputs lie in this process's memory.

The warden's clock runs from its `go` to this process stopped (SIGSTOP) after the answer; it
then reads the outputs itself (process_vm_readv) and compares them with the reference's on the
same, freshly drawn inputs (warden_timed_candidate.py). Nothing this process says is a time or
a verdict: an address that does not hold the right outputs is a mismatch. The outputs stay
referenced here until the next `go` so their memory stays theirs while the warden reads it.
"""

import torch

from .compare import NonTensorOutput, as_output_list
from .shared_args import dtype_name

CALIBRATION_KEY = "calibration"  # armed before the submission loads: the round trip's own cost


def null_call(*args):
    """The calibration's call: nothing but handing its first input back."""
    return args[0]


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
        self.armed = {}  # case key -> arguments in the warden's shared buffers
        self.imports = {}  # case key -> device mappings of those buffers
        self.last_outputs = None

    def arm(self, key: str, fields: dict, fds: list) -> None:
        self.drop(key)  # armed anew when a value that is no tensor changes
        imported = []
        self.armed[key] = self.opener.open(fields, fds, imported)
        self.imports[key] = imported

    def go(self, key: str, entry) -> dict:
        """The reply to one timed call: its outputs' places, or `ok: false` with the error."""
        self.last_outputs = None
        with torch.no_grad():
            result = entry(*self.armed[key])
        try:
            outputs = as_output_list(result)
        except NonTensorOutput:
            outputs = None
        self.last_outputs = result  # kept alive: the warden reads its memory after this reply
        if outputs is None:
            return {"ok": True, "outputs": None}
        return {"ok": True, "outputs": describe_outputs(outputs)}

    def drop(self, key: str) -> None:
        self.armed.pop(key, None)
        self.last_outputs = None
        for mapped in self.imports.pop(key, []):
            mapped.close()
