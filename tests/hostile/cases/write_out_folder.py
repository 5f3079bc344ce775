# task: vector_add
# expect: pass
# device: both
# why: tries to create files in the run's output folder (its root, next to keval.db) and to truncate keval.db, ignores failure
import os

import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def _add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


_tried = False


def vector_add(x, y):
    global _tried
    if not _tried:
        _tried = True
        # the job's cwd is OUT/work/<key>/candidate
        out_root = os.path.abspath(os.path.join(os.getcwd(), "..", "..", ".."))
        try:
            with open(os.path.join(out_root, "keval_hostile_marker.txt"), "w") as f:
                f.write("written by a keval hostile case\n")
        except OSError:
            pass
        try:
            with open(os.path.join(out_root, "keval.db"), "r+b") as f:
                f.truncate(0)
        except OSError:
            pass
    return _add(x, y)
