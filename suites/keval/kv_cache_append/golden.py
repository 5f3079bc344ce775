import torch
import triton
import triton.language as tl

PAGE = 16


@triton.jit
def _cache_append_kernel(key_ptr, value_ptr, kc_ptr, vc_ptr, slot_ptr, row_len,
                         BLOCK: tl.constexpr):
    # program (token, chunk of its Hkv*D row): one contiguous row in, one contiguous row out
    # (a slot's (Hkv, D) row is contiguous in the (num_blocks, 16, Hkv, D) cache)
    tok = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + tok)
    if slot >= 0:
        cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        mask = cols < row_len
        k = tl.load(key_ptr + tok * row_len + cols, mask=mask)
        v = tl.load(value_ptr + tok * row_len + cols, mask=mask)
        tl.store(kc_ptr + slot * row_len + cols, k, mask=mask)
        tl.store(vc_ptr + slot * row_len + cols, v, mask=mask)


def kv_cache_append(key, value, k_cache, v_cache, slot_mapping):
    key = key.contiguous()
    value = value.contiguous()
    T, Hkv, D = key.shape
    row_len = Hkv * D
    BLOCK = min(2048, triton.next_power_of_2(row_len))
    grid = (T, triton.cdiv(row_len, BLOCK))
    _cache_append_kernel[grid](key, value, k_cache, v_cache, slot_mapping, row_len,
                               BLOCK=BLOCK, num_warps=4)
    return k_cache, v_cache
