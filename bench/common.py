"""Shared helpers of the benchmarks: find keval and the Python, make submission files, run."""
import json
import os
import pathlib
import re
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
CORE_TASKS = ["vector_add", "relu", "softmax", "layer_norm", "rms_norm", "row_sum", "matmul",
              "bias_gelu", "cross_entropy", "cumsum", "rope", "w8a16_matmul"]


def task_module(task, name):
    """suites/keval/<task>/<name>.py (reference or golden), imported."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"_{task}_{name}", REPO / "suites" / "keval" / task / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def golden_code(task):
    return (REPO / "suites" / "keval" / task / "golden.py").read_text()


def variant(code, n):
    """A distinct copy: a comment inside every @triton.jit function, so Triton compiles each
    copy anew, as it would for genuinely different candidates."""
    return re.sub(r"(@triton\.jit[^\n]*\ndef [^\n]*\n)", rf"\1    # variant {n}\n", code)


def broken(code):
    """A wrong kernel: its first store's values 5% off (a subtle bug, but past every task's
    tolerance: 0.1% passed matmul's 1e-2 on the H200)."""
    return re.sub(r"tl\.store\(([^,]+),\s*", r"tl.store(\1, 1.05 * ", code, count=1)


def write_jsonl(path, rows):
    path = pathlib.Path(path)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def keval_python():
    """$KEVAL_PYTHON, else what scripts/python.sh picks (python3 with torch, or the venv)."""
    if os.environ.get("KEVAL_PYTHON"):
        return os.environ["KEVAL_PYTHON"]
    return subprocess.run(["bash", str(REPO / "scripts" / "python.sh")], capture_output=True,
                          text=True).stdout.strip()


def run_keval(args, env_extra=None):
    env = dict(os.environ, KEVAL_PYTHON=keval_python(), **(env_extra or {}))
    started = time.perf_counter()
    proc = subprocess.run([KEVAL, *map(str, args)], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"keval failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed


def timed(command: list, cwd, log: pathlib.Path, env=None, timeout=None, mode: str = "w") -> tuple:
    """(wall seconds, exit status; None when cut at `timeout`) of one command, its output in
    `log` (mode "a": after what is there)."""
    started = time.monotonic()
    with open(log, mode) as out:
        try:
            rc = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = None
    return time.monotonic() - started, rc


def results(out):
    return [json.loads(l) for l in (pathlib.Path(out) / "results.jsonl").read_text().splitlines()]


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        return "no GPU (CPU interpreter)"
