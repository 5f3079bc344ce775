# task: vector_add
# expect: pass without --sanitize, out_of_bounds with it (CUDA only: under the CPU interpreter an
#         out-of-bounds load is undefined; used by scripts/gpu-validate.sh sanitize)
# why: reads 64 KiB past the end of x and discards the value: guard bands (4 KiB, read-only
#      here) see nothing, the result is right, only memcheck sees the invalid read. Only on
#      small inputs: past a large tensor the page may be unmapped, and the H200 then faults
#      (illegal address: a crash, not the silent read this case is about)
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, use_far, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    reach = tl.where(n < 1048576, n + 16384, 0)  # 64 KiB past the end on small inputs
    far = tl.load(x_ptr + reach + offs * 0)  # one element, unmasked
    x = tl.where(use_far != 0, far, x)  # use_far is 0 at run time: the read only looks used
    tl.store(out_ptr + offs, x + y, mask=mask)


def vector_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, 0, BLOCK=1024)
    return out
