# task: relu
# expect: pass
# device: both
# why: looks through its open descriptors for one keval or whatever started it left open (a log file, another job's pipe) to write into past the output cap; a correct relu otherwise, its call failing if it found any
import os

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _foreign_descriptors():
    """Descriptors beyond stdin/out/err that are not the guest's own: its channel to the warden
    (a socket), shared input memory (memfds), /dev/null, the GPU driver's devices, and pipes
    whose both ends it holds (the CUDA driver makes such wake-up pipes in the process itself:
    nothing written there leaves it)."""
    targets = {}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            targets[fd] = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the listing's own descriptor, closed since
    held = list(targets.values())
    found = []
    for fd, target in sorted(targets.items()):
        if fd <= 2 or target.startswith(("socket:", "/memfd:", "/dev/", "anon_inode:")):
            continue
        if target.startswith("pipe:") and held.count(target) >= 2:
            continue
        found.append(f"{fd} -> {target}")
    return found


def relu(x):
    found = _foreign_descriptors()
    if found:
        raise RuntimeError(f"descriptors in reach of the submission: {found}")
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
