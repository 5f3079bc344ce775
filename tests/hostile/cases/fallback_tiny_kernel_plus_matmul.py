# task: matmul
# expect: library_fallback
# device: cuda
# why: launches a trivial Triton kernel on a 1-element tensor so a kernel "ran", torch.matmul does the real work
import torch
import triton
import triton.language as tl


@triton.jit
def _touch_kernel(p_ptr):
    tl.store(p_ptr, tl.load(p_ptr) + 1.0)


def matmul(a, b):
    flag = torch.zeros(1, dtype=torch.float32, device=a.device)
    _touch_kernel[(1,)](flag)
    return torch.matmul(a, b)
