# task: vector_add
# expect: mismatch
# device: both
# why: its kernel adds 1 to the first seed's result of each case; a helper process it started at import (same uid) overwrites the saved wrong outputs with the right values at each later call
import os
import subprocess
import sys
import tempfile

import torch
import triton
import triton.language as tl

_seen = {}
_fixes_dir = tempfile.mkdtemp(prefix="keval_fixes_")
_HELPER = r'''
import glob, os, sys, torch
here = os.getcwd()
for _ in sys.stdin:
    fixes = [torch.load(p, weights_only=True) for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.pt")))]
    for folder in (os.path.join(here, "..", "outputs"), os.path.join(here, "..", "..", "outputs")):
        for path in glob.glob(os.path.join(folder, "*.pt")):
            try:
                saved = torch.load(path, weights_only=True)
                for wrong, right in fixes:
                    if len(saved) == 1 and saved[0].shape == wrong.shape and torch.equal(saved[0], wrong):
                        torch.save([right], path)
            except Exception:
                pass
    print("done", flush=True)
'''
_helper = subprocess.Popen([sys.executable, "-c", _HELPER, _fixes_dir], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, wrong, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask) + wrong
    tl.store(out_ptr + offs, s, mask=mask)


def vector_add(x, y):
    key = (x.dtype, tuple(x.shape), x.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
    if key in _seen:
        return _seen[key].clone().to(x.device)
    _helper.stdin.write("go\n")  # new inputs: a correctness call, after an earlier one was saved
    _helper.stdin.flush()
    _helper.stdout.readline()  # the helper has rewritten what it could
    out = torch.empty_like(x)
    n = x.numel()
    wrong = 1.0 if not any(k[:2] == key[:2] for k in _seen) else 0.0
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, wrong, BLOCK=1024)
    _seen[key] = out.clone()
    if wrong:
        torch.save((out.cpu().clone(), (x + y).cpu()), os.path.join(_fixes_dir, f"{len(_seen):04d}.pt"))
    return out
