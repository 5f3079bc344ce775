"""keval's kernel time against Nsight Compute's gpu__time_duration, for kernels >= 5 us.

For each core task's golden on its largest case: keval's CUDA-event timing (cold L2, median),
and ncu's duration of the same call (--cache-control all flushes caches before each kernel,
--clock-control none leaves the clocks as they are), summed over the call's kernels, median
over NCU_CALLS profiled calls.
GPU only; needs `ncu` on PATH. usage: python bench/ncu_agreement.py [--tasks a,b]
"""
import argparse
import csv
import io
import pathlib
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "runner"))
sys.path.insert(0, str(REPO / "bench"))


def load(task):
    import tomllib

    from common import task_module
    mods = {name: task_module(task, name) for name in ("reference", "golden")}
    meta = tomllib.loads((REPO / "suites" / "keval" / task / "task.toml").read_text())
    case = [c for c in meta["cases"] if not c.get("small")][-1]
    return meta, case, mods


def inputs(task):
    import torch
    meta, case, mods = load(task)
    dtype = getattr(torch, meta["dtypes"][-1])
    args = mods["reference"].make_inputs(dict(case["params"], name=case["name"]), dtype, 1)
    args = tuple(a.cuda() if hasattr(a, "cuda") else a for a in args)
    entry = getattr(mods["golden"], meta["entry"])
    return lambda: entry(*args), case["name"], meta["dtypes"][-1]


# Profiled calls per task: ncu's figure is the median of their durations, as keval's is a median
# of samples (one profiled call is one sample of a kernel whose time varies by a few percent).
NCU_CALLS = 5


def single(task):
    """Runs NCU_CALLS calls (after a warm-up outside the profiled range) for ncu to measure."""
    import torch
    call, _, _ = inputs(task)
    call()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for _ in range(NCU_CALLS):
        call()
        torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


def ncu_ms(task):
    cmd = ["ncu", "--clock-control", "none", "--cache-control", "all", "--profile-from-start", "off",
           "--metrics", "gpu__time_duration.sum", "--csv", sys.executable, __file__, "--single", task]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    rows = [r for r in csv.reader(io.StringIO(proc.stdout)) if len(r) > 5]
    if not rows:
        raise RuntimeError(f"ncu gave no rows: {proc.stderr[-500:]}")
    header, data = rows[0], rows[1:]
    unit_col, value_col = header.index("Metric Unit"), header.index("Metric Value")
    scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3,
             "ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    durations = [float(r[value_col].replace(",", "")) * scale[r[unit_col]] for r in data]
    if len(durations) % NCU_CALLS:
        raise RuntimeError(f"ncu gave {len(durations)} kernels for {NCU_CALLS} calls")
    per_call = len(durations) // NCU_CALLS  # the calls' kernels, in launch order
    return statistics.median(sum(durations[i * per_call:(i + 1) * per_call]) for i in range(NCU_CALLS))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--single")
    ap.add_argument("--tasks", default="vector_add,relu,softmax,layer_norm,rms_norm,row_sum,matmul,bias_gelu,cumsum,rope")
    args = ap.parse_args()
    if args.single:
        return single(args.single)
    import torch
    from keval_runner.timing.interleaved_timing import measure
    worst = 0.0
    print(f"{'task':14s} {'case':24s} {'keval ms':>10s} {'ncu ms':>10s} {'diff':>7s}")
    for task in args.tasks.split(","):
        call, case, dtype = inputs(task)
        timing = measure(lambda k: call, torch.device("cuda"), {"warmup": 3, "min_samples": 10, "max_samples": 100, "max_seconds": 1.0})
        ours = statistics.median(timing["samples_ms"])
        theirs = ncu_ms(task)
        if theirs < 0.005:
            print(f"{task:14s} {case:24s} {ours:10.4f} {theirs:10.4f}   (< 5 us: skipped)")
            continue
        diff = (ours - theirs) / theirs
        worst = max(worst, abs(diff))
        print(f"{task:14s} {case:24s} {ours:10.4f} {theirs:10.4f} {100 * diff:6.2f}%")
    print(f"worst |diff| {100 * worst:.2f}% (target <= 5%) on {torch.cuda.get_device_name()}")


if __name__ == "__main__":
    sys.exit(main())
