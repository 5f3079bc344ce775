# task: relu
# expect: pass
# device: both
# why: looks (names hidden from the static scan) for the job's other input sets in its own process (the runner's memo of drawn inputs, which a CPU job's zygote fills for every seed before the fork) and for the seeds in the job's request, to answer later calls from a table; a correct relu otherwise, its call failing if it found any
import importlib
import os
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _drawn_sets():
    """Input sets the runner drew and still holds in this process: its memo, or any dict of
    argument tuples keyed like it (found through the garbage collector)."""
    memo = getattr(sys.modules.get(".".join(["keval" + "_runner", "inputs", "inputs"])), "_" + "MEMO", None)
    found = len(memo) if memo else 0
    walk = getattr(importlib.import_module("g" + "c"), "get" + "_objects")
    for obj in walk():
        if obj is not memo and isinstance(obj, dict) and obj and len(obj) < 10_000:
            keys = list(obj)[:4]
            if all(isinstance(k, tuple) and len(k) == 6 for k in keys) and all(
                    isinstance(v, tuple) and any(isinstance(a, torch.Tensor) for a in v) for v in obj.values()):
                found += len(obj)
    return found


def _seeds_in_reach():
    """Seeds of the job's calls in a dict this process holds: the job's request (the one whose
    code_file is this file; the runner's protocol schema holds an example request too)."""
    walk = getattr(importlib.import_module("g" + "c"), "get" + "_objects")
    requests = [obj for obj in walk() if isinstance(obj, dict) and isinstance(obj.get("cases"), list)
                and isinstance(obj.get("code_file"), str) and os.path.exists(obj["code_file"])]
    return sum(len(case.get("seeds") or []) for request in requests for case in request["cases"]
               if isinstance(case, dict))


def relu(x):
    seen = _drawn_sets() + _seeds_in_reach()
    if seen:
        raise RuntimeError(f"{seen} drawn input sets or seeds in reach of the submission")
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
