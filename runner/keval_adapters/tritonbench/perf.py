"""TritonBench performance files (performance_metrics/perf_{G,T}/golden_metrics/<op>_perf.py) as
keval benchmark cases.

A perf file defines `class performance_metrics(Performance_Metrics)` whose `get_input_tensors()`
fills a list of inputs (one per size), `call_op(input)` calls the operator imported from the
task file, and `get_gbps`/`get_tflops` turn a runtime into rates. At adaptation time the file is
cleaned statically (its imports of the task module and of performance_utils, sys.path edits and
`__main__` block removed; line numbers kept) and sized by a dry run in a subprocess in which every
tensor is a shape-only 'meta' tensor: how many inputs, and each one's bytes and FLOPs (the rates
at a runtime of 1 s). Two inputs become non-small cases (the middle one and the largest under
MAX_INPUT_BYTES); the jobs build only the input they need (runtime.py).
"""

import ast
import json
import os
import re
import subprocess
import sys

from ..common.runner_path import RUNNER_DIR

MAX_INPUT_BYTES = 1 << 30  # inputs are drawn per seed and process, and rotated in several copies
TASK_MODULES = ("TritonBench_v1", "TorchBench_v1")


class PerfSpec:
    def __init__(self, source: str, imports: dict, path: str):
        self.source = source
        self.imports = imports
        self.path = path
        self.reference = None  # a PyTorch reference's source: its outputs are sized too
        self.cases = []
        self.notes = []

    @staticmethod
    def load(perf_dir: str, stem: str):
        path = os.path.join(perf_dir, f"{stem}_perf.py")
        if not os.path.isfile(path):
            return None
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return None
        imports, drop = {}, []
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in TASK_MODULES:
                imports.update({a.asname or a.name: a.name for a in node.names})
                drop.append(node)
            elif isinstance(node, ast.ImportFrom) and node.module == "performance_utils":
                drop.append(node)
            elif isinstance(node, ast.Expr) and "sys.path" in ast.unparse(node):
                drop.append(node)
            elif isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
                drop.append(node)
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        metrics = classes.get("performance_metrics")
        methods = {n.name for n in metrics.body if isinstance(n, ast.FunctionDef)} if metrics else set()
        if not {"get_input_tensors", "call_op"} <= methods:
            return None
        from .source_edit import blank_statements

        return PerfSpec(blank_statements(text, drop), imports, path)

    def choose_cases(self, sizing: dict) -> None:
        """Cases from the dry run's sizing of every input (or a note why there are none)."""
        if sizing.get("error"):
            self.notes.append(f"no performance case: sizing its inputs failed ({sizing['error'][:160]})")
            return
        inputs = sizing.get("inputs") or []
        # an input without tensors (sizes only) is fine: call_op then makes its tensors itself
        # outputs count where they could be sized: a broadcast's expanded view is saved whole
        # (TritonBench-T broadcast_tensors: 1 MiB of inputs, 64 GiB of output at input 7)
        fitting = [i for i, item in enumerate(inputs) if item["tensor_bytes"] <= MAX_INPUT_BYTES
                   and (item.get("output_bytes") or 0) <= MAX_INPUT_BYTES]
        if not fitting:
            self.notes.append(f"no performance case: no input of the perf file (or its outputs) fits {MAX_INPUT_BYTES >> 20} MiB"
                              if inputs else "no performance case: no input")
            return
        chosen = sorted({fitting[len(fitting) // 2], fitting[-1]})
        for index in chosen:
            item = inputs[index]
            shape = re.sub(r"[^0-9x]", "", item["shape"])[:40] or "input"
            self.cases.append({
                "name": f"perf{index}_{shape}", "small": False,
                "params": {"bench": index, "flops_n": int(round(item["flops"] or 0)),
                           "bytes_n": int(round(item["bytes"] or item["tensor_bytes"] or 0))},
            })
        if any(inputs[i]["bytes"] is None for i in chosen):
            self.notes.append("the perf file's get_gbps failed on shapes alone: bytes are the inputs' size")
        self.notes.append(f"performance cases: inputs {chosen} of {len(inputs)} of "
                          f"{os.path.basename(self.path)} (the middle one and the largest under "
                          f"{MAX_INPUT_BYTES >> 20} MiB{', outputs too' if self.reference else ''}).")


def size_all(specs: dict, python: str = None, timeout: float = 600.0) -> dict:
    """{name: sizing} for {name: PerfSpec}, from one dry-run subprocess (meta tensors only)."""
    if not specs:
        return {}
    request = json.dumps({name: {"source": s.source, "imports": s.imports, "path": s.path, "reference": s.reference}
                          for name, s in specs.items()})
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [RUNNER_DIR, env.get("PYTHONPATH", "")] if p)
    env["TRITON_INTERPRET"] = "1"  # nothing runs on a GPU: @triton.jit only has to define kernels
    env.setdefault("CUDA_VISIBLE_DEVICES", "")
    try:
        proc = subprocess.run([python or sys.executable, "-m", "keval_adapters.tritonbench.perf"],
                              input=request, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {name: {"error": f"dry run over {timeout:.0f} s"} for name in specs}
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        reason = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {name: {"error": f"dry run failed: {reason}"} for name in specs}


def _shape_text(value) -> str:
    import torch

    if isinstance(value, torch.Tensor):
        return "x".join(str(d) for d in value.shape) or "scalar"
    if isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, torch.Tensor):
                return _shape_text(v)
    if isinstance(value, dict):
        return _shape_text(list(value.values()))
    return ""


def _tensor_bytes(value) -> int:
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_tensor_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_tensor_bytes(v) for v in value.values())
    if isinstance(value, torch.nn.Module):
        return sum(p.numel() * p.element_size() for p in value.parameters())
    return 0


def _rate(method, item, scale):
    try:
        value = float(method(item, 1000.0)) * scale  # rates at 1000 ms = 1 s: the amounts themselves
        return value if value >= 0 and value == value and value != float("inf") else None
    except Exception:
        return None


def _size_one(job: dict, runtime) -> dict:
    namespace = {"__name__": "keval_tritonbench_sizing"}

    def missing(*args, **kwargs):
        raise RuntimeError("the task's functions are not loaded while sizing")

    for alias in job["imports"]:
        namespace[alias] = missing
    runtime._keval_tb_perf_load(job["source"], {}, job["path"], namespace)
    # inputs without the task's functions, as a case builds them (a perf file that calls the
    # operator while building its inputs gets no case: two T tasks do)
    inputs = runtime._keval_tb_perf_generate(namespace, -1, 0)
    metrics = runtime._keval_tb_perf_instance(namespace)
    sized_outputs = False
    if job.get("reference"):
        reference = {"__name__": "keval_tritonbench_sizing_reference"}
        try:
            runtime._keval_tb_exec(job["reference"], job["path"], reference)
            for alias, original in job["imports"].items():
                namespace[alias] = reference.get(original, missing)
            sized_outputs = True
        except Exception:  # noqa: BLE001 (sizes of the inputs only, as for a Triton reference)
            pass
    out = []
    for item in inputs:
        out.append({"shape": _shape_text(item), "tensor_bytes": _tensor_bytes(item),
                    "bytes": _rate(getattr(metrics, "get_gbps", None), item, 1e9),
                    "flops": _rate(getattr(metrics, "get_tflops", None), item, 1e12),
                    "output_bytes": _output_bytes(metrics, item) if sized_outputs else None})
    return {"inputs": out}


def _output_bytes(metrics, item):
    """Bytes of what call_op returns for a meta input, expanded views counted whole (they are
    saved whole); None when the call does not run on meta tensors."""
    try:
        return _tensor_bytes(metrics.call_op(item))
    except Exception:  # noqa: BLE001
        return None


def _dry_run_main() -> int:
    import signal

    from . import runtime

    jobs = json.loads(sys.stdin.read())
    results = {}

    def too_long(*_):
        raise TimeoutError("over 20 s")

    signal.signal(signal.SIGALRM, too_long)
    for name, job in jobs.items():
        signal.alarm(20)
        try:
            results[name] = _size_one(job, runtime)
        except BaseException as exc:  # noqa: BLE001 (a perf file may raise anything, even SystemExit)
            results[name] = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__}
        finally:
            signal.alarm(0)
    sys.stdout.write("\n" + json.dumps(results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_dry_run_main())
