"""A call's outputs handed from the guest to the warden in sealed memory, not through the socket.

The guest copies each output into its own memfd, unmaps it and seals it against writing,
growing and shrinking (and against new seals), then passes the descriptors. A sealed memfd can
no longer change for anyone, so the warden maps it privately and reads the candidate's values
with no copy the guest could still touch: a large output costs one device-to-host copy instead
of that copy, a socket transfer and a copy on the warden's side. The warden checks every
descriptor's seals and size against the output's description before it maps it.
"""

import fcntl
import mmap
import os

import torch

from .shared_args import dtype_name, output_layout

SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


# -- guest side -----------------------------------------------------------------------------

def seal_outputs(outputs: list) -> tuple:
    """(descriptions, fds): one sealed memfd per non-empty output, in order. Raises OSError when
    the memory cannot be made or sealed (the caller then sends the bytes instead)."""
    described, fds = [], []
    try:
        for t in outputs:
            described.append({"dtype": dtype_name(t.dtype), "shape": list(t.shape)})
            nbytes = _nbytes(t)
            if nbytes == 0:
                continue
            fd = os.memfd_create("keval-output", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            fds.append(fd)
            os.ftruncate(fd, nbytes)
            with mmap.mmap(fd, nbytes) as mapped:
                target = torch.frombuffer(mapped, dtype=torch.uint8).view(t.dtype).view(t.shape)
                # a subclass's __torch_function__ must not choose the values copied
                with torch._C.DisableTorchFunctionSubclass():
                    target.copy_(t.detach())
                del target  # the mapping must go before the write seal
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return described, fds


# -- warden side ----------------------------------------------------------------------------

def open_sealed_outputs(described, fds: list, limit_bytes: int = None) -> list:
    """The guest's outputs as CPU tensors over its sealed memfds, after checking each one's
    description, seals and size, and their total against `limit_bytes` (ValueError otherwise).
    The fds stay the caller's to close."""
    sized = output_layout(described)
    total = sum(nbytes for *_, nbytes in sized)
    if limit_bytes is not None and total > limit_bytes:
        raise ValueError(f"{total} bytes of outputs, more than the {limit_bytes} a call on these inputs may return")
    non_empty = sum(1 for *_, nbytes in sized if nbytes)
    if non_empty != len(fds):
        raise ValueError(f"{len(fds)} output descriptors for {non_empty} non-empty outputs")
    outputs, next_fd = [], iter(fds)
    for shape, dtype, nbytes in sized:
        if nbytes == 0:
            outputs.append(torch.empty(shape, dtype=dtype))
            continue
        fd = next(next_fd)
        try:
            seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
        except OSError as exc:
            raise ValueError(f"an output descriptor is not sealed memory: {exc}") from exc
        if seals & SEALS != SEALS:
            raise ValueError(f"an output's memory is not sealed against change (seals {seals:#x})")
        size = os.fstat(fd).st_size
        if size != nbytes:
            raise ValueError(f"an output's memory holds {size} bytes, its description {nbytes}")
        # private: the tensor may be written (copy on write), the sealed memory never
        mapped = mmap.mmap(fd, nbytes, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        outputs.append(torch.frombuffer(mapped, dtype=torch.uint8).view(dtype).view(shape))
    return outputs
