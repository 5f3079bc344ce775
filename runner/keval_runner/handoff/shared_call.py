"""One call's arguments in memory the guest maps (memfds on the CPU, CUDA IPC on the GPU), placed
between the warden's guard bands."""

import torch

from ..checks import checks
from ..device.device_sharing import shared_allocator
from ..inputs.inputs import tensors_in
from .shared_args import describe_args


class SharedCall:
    """One call's arguments in memory the guest maps, with the warden's checks around them."""

    def __init__(self, args, guard_bytes: int):
        self.buffers = []
        allocate = shared_allocator(self.buffers, checks.guarded_bytes_by_device(args, guard_bytes))
        self.guards = checks.GuardBands(args, guard_bytes, allocate=allocate)
        self.args = self.guards.args
        self.inputs = tensors_in(self.args)
        self.fields, self.fds = describe_args(self.args, self.buffers)
        if any(t.device.type == "cuda" for t in self.inputs):
            torch.cuda.synchronize()  # the guest reads them from another context

    def keep_private(self) -> None:
        """Closes the descriptors of arguments the guest will not map (a baseline's input sets):
        a batch of cases would otherwise hold two per input, the guest's and the baselines'."""
        for buffer in self.buffers:
            buffer.close_fd()
        self.fds = []

    def close(self) -> None:
        for buffer in self.buffers:
            buffer.close()
        self.buffers = []
