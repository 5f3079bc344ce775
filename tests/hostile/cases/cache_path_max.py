# task: relu
# expect: pass
# device: both
# why: fills its uid's compile caches (TRITON_CACHE_DIR, TORCHINDUCTOR_CACHE_DIR) with a folder chain past PATH_MAX, chmod 000 folders and odd names: a clean-up by paths fails there, and every later job of the uid would be unjudged
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


def _relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


_planted = False


def _deep_tree(top: str) -> None:
    os.makedirs(top, exist_ok=True)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(300):  # 300 x 21 bytes: past PATH_MAX (4096)
            name = "x" * 20
            os.mkdir(name, dir_fd=fd)
            odd = os.open("odd\nname \udcff", os.O_WRONLY | os.O_CREAT, 0o000, dir_fd=fd)
            os.close(odd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        for level in range(300):  # back up, leaving every 25th folder chmod 000
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = parent
            if level % 25 == 0:
                os.chmod("x" * 20, 0, dir_fd=fd)
    finally:
        os.close(fd)


def relu(x):
    global _planted
    if not _planted:
        _planted = True
        for variable in ("TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR"):
            if os.environ.get(variable):
                try:
                    _deep_tree(os.path.join(os.environ[variable], "keval_hostile_deep"))
                except OSError:
                    pass
    return _relu(x)
