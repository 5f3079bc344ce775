"""The precision policy end to end: matmul's float32 cases allow TF32 (precision "tf32") and a
float32 atol of 1e-2, loose enough that a kernel rounding its tiles to bfloat16 stays inside it;
the reference job's lower-precision facts make it a mismatch with its own reason, and the
golden still passes."""
import json

from conftest import REPO, read_results, run_keval

GOLDEN = (REPO / "suites" / "keval" / "matmul" / "golden.py").read_text()

# float32 tiles rounded to bfloat16 before tl.dot: bfloat16 tensor cores, float32 accumulation
# (float16 and bfloat16 inputs as they are, multiplied exactly in float32 tiles)
BF16_MATMUL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def bf16_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ROUND: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        ks = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * sam + ks[None, :] * sak, mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * sbk + rn[None, :] * sbn, mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        if ROUND:
            a = a.to(tl.bfloat16)
            b = b.to(tl.bfloat16)
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    bf16_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                             c.stride(0), c.stride(1), BM=32, BN=32, BK=32, ROUND=a.dtype == torch.float32)
    return c
'''


def test_a_float32_matmul_in_bfloat16_fails_on_precision_and_the_golden_passes(tmp_path):
    subs = tmp_path / "subs.jsonl"
    subs.write_text("".join(json.dumps(line) + "\n" for line in [
        {"task": "matmul", "code": GOLDEN, "id": "golden"},
        {"task": "matmul", "code": BF16_MATMUL, "id": "bf16"}]))
    out = tmp_path / "run"
    run_keval("run", "--suite", "suites/keval", "--tasks", "matmul", "--submissions", subs, "--out", out,
              "--device", "cpu")
    results = {r["id"]: r for r in read_results(out)}
    assert results["golden"]["verdict"] == "pass", results["golden"]["reasons"]
    bf16 = results["bf16"]
    assert bf16["verdict"] == "mismatch", bf16["reasons"]
    # every reason but the huge case's is the precision policy's (on float32 cases, and on some
    # seeds a float16 case too, whose inputs bfloat16 rounds coarser than float16 does), or on
    # some seeds an element or two beyond the tolerance (a held-out float32 case: the
    # tolerance's own reason); outputs of 1e5 that cancel leave bfloat16 far outside it
    policy = [r for r in bf16["reasons"] if not r.startswith("case huge_")]
    assert all("output 0: precision: output error" in r or "elements outside tolerance" in r for r in policy), \
        bf16["reasons"]
    float32 = [r for r in policy if " float32 " in r and "output 0: precision: output error" in r]
    assert float32, bf16["reasons"]
    # bfloat16's own error on these inputs, about 0.002 (below on some seeds)
    assert "(bfloat16 0.00" in float32[0] and 'precision "tf32"' in float32[0], bf16["reasons"]
