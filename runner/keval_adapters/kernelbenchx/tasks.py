"""KernelBenchX tasks as native keval task folders (`suite`): the peer's files under peer/, the
runtime, task.toml, reference.py, golden.py and the submission glue."""

import ast
import contextlib
import os
import re
import shutil
import sys
import warnings

from ..common.errors import AdapterError
from ..common.names import snake
from ..common.peer_file import split_file
from ..common.runtime_copy import loader_snippet, runtime_text
from ..common.suite_writer import SuiteWriter, adapter_sources, file_digest
from ..common.task_toml import task_toml
from .checkout import METADATA, Checkout

PEER = "kernelbenchx"  # this package: the tasks' `adapter`, whose code their evaluation keys follow
ADAPTER_VERSION = 1
STAMP = ".kernelbenchx-stamp"
RUNTIME_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime.py")
DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16", "int8": "int8", "int32": "int32"}
QUANT_RMSE_FACTOR = 4.0
INPLACE_CHECK_BYTES = 64 << 20


def tolerance(entry: dict, dtype: str):
    """KernelBenchX's own comparison (EVAL/1_exe_acc.py) as keval's elementwise atol/rtol."""
    thresholds = entry.get("precision_thresholds")
    if thresholds:
        rmse = float(thresholds.get("rmse", 0.01))
        l1 = float(thresholds.get("l1_relative", 0.01))
        cosine = thresholds.get("cosine_sim", 0.99)
        return (QUANT_RMSE_FACTOR * rmse, l1,
                f"KernelBenchX judges this quantised task on aggregates (cosine_sim >= {cosine}, l1_relative <= {l1}, "
                f"rmse <= {rmse}); keval compares elementwise: |out - ref| <= {QUANT_RMSE_FACTOR:g} * rmse + "
                f"l1_relative * |ref| admits errors of that RMS (the largest of ~10^4 normal errors is about 4 sigma)")
    if dtype in ("float16", "bfloat16"):
        return 5e-3, 5e-3, "KernelBenchX's default for float16/bfloat16: assert_close(rtol=5e-3, atol=5e-3)"
    if dtype in ("int8", "int32"):
        return 0.0, 0.0, "KernelBenchX compares integer outputs exactly"
    return 1e-5, 1e-5, "KernelBenchX's default for float32/float64: assert_close(rtol=1e-5, atol=1e-5)"


def function_name(impl: str, stem: str, entry: dict) -> str:
    """The function KernelBenchX's test and perf template call: the implementation's one
    top-level def (else the one named as the file, or as func_inputs begins)."""
    names = [n.name for n in ast.parse(impl).body if isinstance(n, ast.FunctionDef)]
    if len(names) == 1:
        return names[0]
    m = re.match(r"\s*([A-Za-z_]\w*)\s*\(", str(entry.get("func_inputs", "")))
    for wanted in (stem, m.group(1) if m else None):
        if wanted in names:
            return wanted
    if not names:
        raise AdapterError("the reference implementation defines no function")
    return names[0]


def signature_text(entry: dict, function: str) -> str:
    text = str(entry.get("func_inputs", "")).split(" Args:")[0].strip()
    return (text.rstrip(".") or f"{function}(...)")[:400]


def instruction(entry: dict, stem: str, function: str, atol: float, rtol: float) -> str:
    parts = [f"Functional Description: {entry.get('description', '').strip()}",
             f"Wrapper Entry Information: {str(entry.get('func_inputs', '')).strip()}"]
    if entry.get("math"):
        parts.append(f"Math: {entry['math'].strip()}")
    if entry.get("other"):
        parts.append(f"other: {entry['other'].strip()}")
    spec = entry.get("quantization_spec")
    if spec:
        parts.append("Quantization: " + ", ".join(f"{k} {v}" for k, v in spec.items()) + ".")
    thresholds = entry.get("precision_thresholds")
    accuracy = (f"Outputs are compared with the reference elementwise: |out - ref| <= {atol:g} + {rtol:g} * |ref|"
                + (f" (KernelBenchX's thresholds: {', '.join(f'{k} {v}' for k, v in thresholds.items())})"
                   if thresholds else "") + ".")
    also = "`kernel_function`" if stem == function else f"`{stem}` or `kernel_function`"
    return (f"Write the Python function `{function}` described below (KernelBenchX task {entry['file']}) with "
            f"Triton kernels (`@triton.jit`) that you define in the same file; at least one of them must run in "
            f"every call. Define it at the top level of your module (keval also accepts the name {also}). "
            f"KernelBenchX's test calls it with its own small inputs, the benchmark with large ones.\n"
            f"{accuracy}\n\n" + "\n".join(parts) + "\n")


def reference_text(root: str, runtime_path: str, category: str, stem: str, function: str) -> str:
    return f'''"""KernelBenchX task {category}/{stem}.py as a keval reference (peer files under peer/)."""
{loader_snippet("_keval_kbx_")}
_keval_kbx_task = _keval_kbx_load({runtime_path!r}).task({root!r}, {category!r}, {stem!r}, {function!r})


def make_inputs(case, dtype, seed):
    return _keval_kbx_task.make_inputs(case, seed)


def reference(*args):
    impl = _keval_kbx_task.impl()
    return _keval_kbx_task.call(getattr(impl, {function!r}), vars(impl), args)
'''


def suffix_text(root: str, runtime_path: str, category: str, stem: str, function: str) -> str:
    return f'''# keval KernelBenchX glue: `{stem}` becomes the entry when the code above defines `{function}`,
# `{stem}` or `kernel_function`: it runs KernelBenchX's test (case `tests`) or the perf template's
# call (cases `perf_<i>`) with that function; other calls go straight to the function.
{loader_snippet("_keval_kbx_")}
_keval_kbx_runtime = _keval_kbx_load({runtime_path!r})
_keval_kbx_entry = _keval_kbx_runtime.wrap(
    _keval_kbx_runtime.task({root!r}, {category!r}, {stem!r}, {function!r}), globals(), {stem!r})
if _keval_kbx_entry is not None:
    globals()[{stem!r}] = _keval_kbx_entry
'''


def perf_cases(runtime, root: str, category: str, stem: str, function: str):
    """Cases of the perf template (sized on the meta device) and whether the call mutates its
    inputs (tried on the CPU with the first, smallest input). ([], None, note) without a template."""
    import torch

    task = runtime.Task(root, category, stem, function)
    if not os.path.exists(task.perf_path):
        return [], None, "no perf template: the GPU times the test case"
    try:
        count, _, _ = task.perf_item(0, 0, "meta")
    except Exception as e:  # noqa: BLE001
        return [], None, f"perf template unusable ({type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''})"
    cases, sizes = [], []
    for index in range(count):
        moved = flops = 0
        try:
            _, item, instance = task.perf_item(index, 0, "meta")
            moved = int(round(float(instance.get_gbps(item, 1000.0)) * 1e9))
            flops = int(round(float(instance.get_tflops(item, 1000.0)) * 1e12))
            sizes.append(sum(t.numel() * t.element_size() for t in runtime.pytree.tree_leaves(item)
                             if isinstance(t, torch.Tensor)))
        except Exception:  # noqa: BLE001 - sizes unknown for this input
            sizes.append(None)
        cases.append({"name": f"perf_{index}", "small": False,
                      "params": {"perf_index": index, "bytes_moved": max(moved, 0), "flop_count": max(flops, 0)}})
    inplace = None
    if cases and sizes[0] is not None and sizes[0] <= INPLACE_CHECK_BYTES:
        try:
            args = task.make_inputs({"perf_index": 0}, 0)
            before = [a.clone() for a in args if isinstance(a, torch.Tensor)]
            with torch.no_grad():
                task.call(task.reference_function(), vars(task.impl()), args)
            after = [a for a in args if isinstance(a, torch.Tensor)]
            inplace = any(not _same_values(b, a) for b, a in zip(before, after))
        except Exception:  # noqa: BLE001 - e.g. CUDA-only code: fall back to reading the source
            inplace = None
    return cases, inplace, None


def _same_values(a, b) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(((a == b) | ((a != a) & (b != b))).all())


def adapt_suite(source: str, out: str, categories=None, require_kernel: bool = True) -> dict:
    checkout = Checkout(source)
    stems = checkout.stems()
    if categories:
        wanted = {c.lower() for c in categories}
        stems = {s: e for s, e in stems.items() if e["file"].split("/")[0].lower() in wanted}
        if not stems:
            raise AdapterError(f"{checkout.root}: no task in categories {', '.join(sorted(categories))}")
    runtime = runtime_text(RUNTIME_FILE)
    inputs = [os.path.join(checkout.root, METADATA)] + [p for p in (checkout.perf_utils, checkout.data_utils) if os.path.exists(p)]
    for entry in stems.values():
        inputs += checkout.task_files(entry)
    digest = file_digest(adapter_sources(PEER) + inputs,
                         f"{ADAPTER_VERSION}\n{sorted(categories or [])}\n{require_kernel}\n{sys.version}\n")
    writer = SuiteWriter(out, STAMP, digest)
    if writer.up_to_date:
        return writer.report()

    from . import runtime as runtime_module

    warnings.simplefilter("ignore")
    writer.begin()
    report = {"source": checkout.root, "categories": sorted(categories) if categories else "all", "tasks": [],
              "skipped": {}, "without_perf": [], "orphan_files": []}
    listed = {e["file"] for e in checkout.entries if isinstance(e, dict) and isinstance(e.get("file"), str)}
    for folder, _, names in os.walk(checkout.data):
        for name in names:
            relative = os.path.relpath(os.path.join(folder, name), checkout.data).replace(os.sep, "/")
            if name.endswith(".py") and relative not in listed:
                report["orphan_files"].append(relative)
    report["orphan_files"].sort()
    try:
        for stem, entry in sorted(stems.items(), key=lambda kv: kv[1]["file"]):
            why = write_task(writer, checkout, stem, entry, runtime, runtime_module, report, require_kernel)
            if why:
                report["skipped"][entry["file"]] = why
                shutil.rmtree(os.path.join(writer.building, stem), ignore_errors=True)
            else:
                report["tasks"].append(stem)
        if not report["tasks"]:
            raise AdapterError(f"{checkout.root}: no task could be adapted")
        writer.commit(report)
    except BaseException:
        writer.abort()
        raise
    return report


def write_task(writer, checkout, stem, entry, runtime, runtime_module, report, require_kernel=True):
    """Writes one task folder; returns why it was skipped, or None."""
    if not re.fullmatch(r"[A-Za-z_]\w*", stem):
        return f"file name {stem!r} is not a Python identifier (the entry must be named after it)"
    category = entry["file"].split("/")[0]
    path = os.path.join(checkout.data, entry["file"])
    if not os.path.isfile(path):
        return "file missing"
    with open(path, encoding="utf-8") as f:
        impl, test = split_file(f.read())
    if test is None:
        return "no test part (no 146-# separator)"
    try:
        function = function_name(impl, stem, entry)
    except (SyntaxError, AdapterError) as e:
        return f"reference implementation: {e}"
    final = writer.final_dir(stem)
    root = os.path.join(final, "peer")
    runtime_path = os.path.join(final, "kernelbenchx_runtime.py")
    writer.write(stem, f"peer/data/kernelbenchx/{category}/{stem}.py", impl)
    writer.write(stem, f"peer/tests/{stem}.py", test)
    perf = os.path.join(checkout.perf, f"{stem}_perf.py")
    for src, rel in ((perf, f"peer/metrics/golden_metrics/{stem}_perf.py"),
                     (checkout.perf_utils, "peer/metrics/performance_utils.py"),
                     (checkout.data_utils, "peer/utils/data_utils.py")):
        if os.path.exists(src):
            with open(src, encoding="utf-8") as f:
                writer.write(stem, rel, f.read())
    writer.write(stem, "kernelbenchx_runtime.py", runtime)

    dtype_name = str(entry.get("dtype") or (entry.get("quantization_spec") or {}).get("output") or "float32")
    dtype = DTYPES.get(dtype_name.replace("torch.", ""), "float32")
    atol, rtol, reason = tolerance(entry, dtype)
    with contextlib.redirect_stdout(sys.stderr):  # templates print; stdout is not ours to fill
        cases, inplace, note = perf_cases(runtime_module, os.path.join(writer.building, stem, "peer"),
                                          category, stem, function)
    if inplace is None:
        inplace = category == "Optimizer" or stem.endswith("_") or bool(re.search(r"\.(?!copy_\()\w+_\(", impl))
    notes = [note] if note else []
    if not cases:
        report["without_perf"].append(stem)
    notes.append("cases: `tests` runs KernelBenchX's test (small inputs, its corner cases, two seeds); "
                  "`perf_<i>` the perf template's i-th input (correctness checked there too)")
    fields = {
        "name": stem, "version": ADAPTER_VERSION, "adapter": PEER, "track": "ops", "category": snake(category),
        "difficulty": max(1, min(5, int(entry.get("difficulty") or 3))), "entry": stem,
        "signature": signature_text(entry, function),
        "instruction": instruction(entry, stem, function, atol, rtol), "dtypes": [dtype],
        "inplace": bool(inplace), "require_kernel": require_kernel, "flops": "flop_count", "bytes": "bytes_moved",
        "shared_inputs": False,  # the perf template may build on CUDA: never in the zygote
        "inputs_on_device": True,  # built with the job's device as the default device
        "source": f"KernelBenchX data/kernelbenchx/{entry['file']}", "notes": "; ".join(notes),
    }
    all_cases = [{"name": "tests", "small": True, "params": {"bytes_moved": 0, "flop_count": 0}}] + cases
    writer.write(stem, "task.toml", task_toml(fields, {dtype: (atol, rtol, reason)}, all_cases))
    writer.write(stem, "reference.py", reference_text(root, runtime_path, category, stem, function))
    suffix = suffix_text(root, runtime_path, category, stem, function)
    writer.write(stem, "submission_suffix.py", suffix)
    writer.write(stem, "golden.py", "# Golden of a KernelBenchX task: its reference implementation (PyTorch: "
                 "`keval validate` reports no_kernel unless the suite spec ends in any-code).\n"
                 + impl.rstrip() + "\n\n\n" + suffix)
    return None


def split_select(text: str):
    """`Activation,Math,any-code` -> (categories or None, require_kernel): `any-code` lets any
    code pass (PyTorch included), e.g. to judge KernelBenchX's own PyTorch references."""
    parts = [c.strip() for c in (text or "").split(",") if c.strip()]
    return [c for c in parts if c != "any-code"] or None, "any-code" not in parts
