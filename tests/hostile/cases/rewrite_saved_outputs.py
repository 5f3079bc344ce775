# task: relu
# expect: mismatch
# device: both
# why: its kernel gets the first seed of each case wrong; during later calls it finds the saved outputs files (the job's folder's sibling outputs/) and overwrites the wrong ones with the right values
import glob
import os

import torch
import triton
import triton.language as tl

_seen = {}  # input bytes -> output already returned for them (so a re-run repeats itself)
_fixes = []  # (wrong output, right output)


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, wrong, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.maximum(x, 0.0) + wrong
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _outputs_dirs():
    here = os.getcwd()
    return [d for d in (os.path.join(here, "..", "outputs"), os.path.join(here, "..", "..", "outputs")) if os.path.isdir(d)]


def _rewrite():
    for folder in _outputs_dirs():
        for path in glob.glob(os.path.join(folder, "*.pt")):
            try:
                saved = torch.load(path, weights_only=True)
                for wrong, right in _fixes:
                    if len(saved) == 1 and saved[0].shape == wrong.shape and torch.equal(saved[0], wrong):
                        torch.save([right], path)
            except Exception:
                pass


def relu(x):
    _rewrite()
    key = (x.dtype, tuple(x.shape), x.detach().cpu().contiguous().view(torch.uint8).numpy().tobytes())
    if key in _seen:
        return _seen[key].clone().to(x.device)
    out = torch.empty_like(x)
    n = x.numel()
    wrong = 1.0 if not any(k[:2] == key[:2] for k in _seen) else 0.0
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, wrong, BLOCK=1024)
    _seen[key] = out.clone()
    if wrong:
        _fixes.append((out.cpu().clone(), torch.relu(x).cpu()))
    return out
