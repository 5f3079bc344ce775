"""KernelBenchX's own rules, as its harness applies them (EVAL/0_call_acc.py, EVAL/1_exe_acc.py,
utils/correction_utils.py): the code it extracts, the export check of its call stage, and the
comparison of its exec stage. Used by judges.py; reproduced with its weaknesses."""

import ast
import random


def kernelbenchx_code(predict: str) -> str:
    """EVAL/0_call_acc.py clear_code."""
    code = str(predict)
    if "```python" in code:
        code = code.split("```python", 1)[-1]
    if "```" in code:
        code = code.split("```", 1)[0]
    return code.replace("<|im_end|>", "").replace("<|EOT|>", "").strip()


def exports_kernel(impl: str, stem: str):
    """utils/correction_utils.py impl_must_export_kernel: (ok, why)."""
    impl = (impl or "").strip()
    if not impl:
        return False, "kernel entry check: empty implementation segment"
    try:
        tree = ast.parse(impl)
    except SyntaxError as e:
        return False, f"kernel entry check: syntax error in implementation: {e}"
    names = {stem, "kernel_function"}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in names:
            return True, ""
        targets = node.targets if isinstance(node, ast.Assign) else []
        targets = [node.target] if isinstance(node, ast.AnnAssign) else targets
        if any(isinstance(t, ast.Name) and t.id in names for t in targets):
            return True, ""
    return False, (f"kernel entry check: need `def {stem}(...)` or `def kernel_function(...)` "
                   f"(or assign `{stem}` / `kernel_function`).")


def precision_metric(output, reference) -> dict:
    """utils/correction_utils.py precision_metric (the aggregates quantised tasks are judged on)."""
    import torch

    if output.numel() > 200000:
        output, reference = output.cpu(), reference.cpu()
    x, ref = output.float(), reference.float()
    x_norm = torch.linalg.vector_norm(x.reshape(-1)).item()
    ref_norm = torch.linalg.vector_norm(ref.reshape(-1)).item()
    if x_norm < 1e-12 and ref_norm < 1e-12:
        cosine = 1.0
    elif x_norm < 1e-12 or ref_norm < 1e-12:
        cosine = 0.0
    else:
        cosine = torch.nn.functional.cosine_similarity(x.reshape(1, -1), ref.reshape(1, -1)).item()
    l1 = (torch.abs(x - ref).sum() / torch.abs(ref).sum().clamp_min(1e-12)).item()
    rmse = torch.sqrt(torch.mean((x - ref) ** 2)).item()
    return {"cosine_sim": cosine, "l1_relative": l1, "rmse": rmse}


def default_tolerance(dtype):
    """(rtol, atol) of 1_exe_acc.py by the candidate's torch or numpy dtype; others exact."""
    import numpy as np
    import torch

    if isinstance(dtype, torch.dtype):
        halves, floats = (torch.float16, torch.bfloat16), (torch.float32, torch.float64)
    else:
        dtype = np.dtype(dtype)
        halves, floats = (np.dtype(np.float16),), (np.dtype(np.float32), np.dtype(np.float64))
    if dtype in halves:
        return 5e-3, 5e-3
    if dtype in floats:
        return 1e-5, 1e-5
    return 0.0, 0.0


def compare_values(v1, v2, path: str = "test_results", threshold: dict = None) -> None:
    """1_exe_acc.py compare_python_files' comparison of the candidate's (v1) and the reference's
    (v2) test_results: raises AssertionError (or whatever the comparison raises) on a difference.
    A task with precision_thresholds judges every tensor on the aggregates, else assert_close."""
    import math

    import numpy as np
    import torch

    if isinstance(v1, torch.Tensor) and isinstance(v2, torch.Tensor):
        if v1.shape != v2.shape:
            raise AssertionError(f"shape mismatch at {path}: {tuple(v1.shape)} vs {tuple(v2.shape)}")
        if v1.dtype != v2.dtype:
            raise AssertionError(f"dtype mismatch at {path}: {v1.dtype} vs {v2.dtype}")
        if threshold:
            m = precision_metric(v1, v2)
            if not (m["cosine_sim"] >= threshold.get("cosine_sim", 0.99) and m["l1_relative"] <= threshold.get(
                    "l1_relative", 0.01) and m["rmse"] <= threshold.get("rmse", 0.01)):
                raise AssertionError(f"Precision threshold not met at {path}: {m}")
        else:
            rtol, atol = default_tolerance(v1.dtype)
            torch.testing.assert_close(v1, v2, rtol=rtol, atol=atol, equal_nan=True)
        return
    if isinstance(v1, (list, tuple)) and isinstance(v2, (list, tuple)):
        if len(v1) != len(v2):
            raise AssertionError(f"length mismatch at {path}: {len(v1)} vs {len(v2)}")
        for i, (a, b) in enumerate(zip(v1, v2)):
            compare_values(a, b, f"{path}[{i}]", threshold)
        return
    if isinstance(v1, dict) and isinstance(v2, dict):
        if set(v1) != set(v2):
            raise AssertionError(f"dict keys mismatch at {path}: {sorted(v1)} vs {sorted(v2)}")
        for k in sorted(v1):
            compare_values(v1[k], v2[k], f"{path}.{k}", threshold)
        return
    if isinstance(v1, np.ndarray) or isinstance(v2, np.ndarray):
        if not (isinstance(v1, np.ndarray) and isinstance(v2, np.ndarray)):
            raise AssertionError(f"type mismatch at {path}: {type(v1).__name__} vs {type(v2).__name__}")
        if v1.shape != v2.shape or v1.dtype != v2.dtype:
            raise AssertionError(f"shape/dtype mismatch at {path}: {v1.shape} {v1.dtype} vs {v2.shape} {v2.dtype}")
        rtol, atol = default_tolerance(v1.dtype)
        if rtol or atol:
            np.testing.assert_allclose(v1, v2, rtol=rtol, atol=atol, equal_nan=True)
        elif not np.array_equal(v1, v2, equal_nan=True):
            raise AssertionError(f"ndarray mismatch at {path}")
        return
    numbers = (int, float, complex, np.number)
    if isinstance(v1, numbers) or isinstance(v2, numbers):
        a1, a2 = np.asarray(v1), np.asarray(v2)
        # bools are not np.number: they fall through to `!=`, as in KernelBenchX
        if a1.shape == () == a2.shape and np.issubdtype(a1.dtype, np.number) and np.issubdtype(a2.dtype, np.number):
            if isinstance(v1, float) and isinstance(v2, float) and math.isnan(v1) and math.isnan(v2):
                return
            rtol, atol = default_tolerance(np.result_type(a1.dtype, a2.dtype))
            if rtol or atol:
                np.testing.assert_allclose(a1, a2, rtol=rtol, atol=atol, equal_nan=True)
            elif not np.array_equal(a1, a2, equal_nan=True):
                raise AssertionError(f"scalar mismatch at {path}: {v1!r} vs {v2!r}")
            return
    if v1 != v2:
        raise AssertionError(f"value mismatch at {path}: {v1!r} vs {v2!r}")


# ---------------------------------------------------------------------------------------------
# The child process: a script as KernelBenchX runs it


def seed_all(seed: int) -> None:
    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
