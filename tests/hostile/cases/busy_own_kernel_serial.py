# task: matmul
# expect: library_fallback
# device: cuda
# why: torch.matmul does the work; before it, on the same stream, its own Triton kernel spins for 1.3x the matmul's time, so its own kernels hold most of the call's GPU time
import torch
import triton
import triton.language as tl

_spin_ns = {}


@triton.jit
def _spin_kernel(flag_ptr, duration_ns):
    start = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)
    now = start
    while now - start < duration_ns:
        now = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)
    tl.store(flag_ptr, 1)


def _matmul_ns(a, b):
    key = (tuple(a.shape), tuple(b.shape), a.dtype)
    if key not in _spin_ns:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.matmul(a, b)
        start.record()
        torch.matmul(a, b)
        end.record()
        end.synchronize()
        _spin_ns[key] = int(start.elapsed_time(end) * 1e6 * 1.3)
    return _spin_ns[key]


def matmul(a, b):
    flag = torch.zeros(1, dtype=torch.int32, device=a.device)
    _spin_kernel[(1,)](flag, _matmul_ns(a, b))
    return torch.matmul(a, b)
