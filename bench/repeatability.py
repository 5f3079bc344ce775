"""Run-to-run speedup drift: the same submissions timed in two separate `keval run`s.

usage: python bench/repeatability.py [--device cuda] [--tasks a,b] [--copies N]
Prints the median and 95th percentile of |Δspeedup| / speedup over passing submissions.
"""
import argparse
import pathlib
import shutil
import statistics
import tempfile

from common import CORE_TASKS, gpu_name, golden_code, results, run_keval, variant, write_jsonl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tasks", default=",".join(CORE_TASKS))
    ap.add_argument("--copies", type=int, default=1)
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="keval-repeat-"))
    rows = [{"task": t, "id": f"{t}-{n}", "code": variant(golden_code(t), n)}
            for t in args.tasks.split(",") for n in range(args.copies)]
    subs = write_jsonl(work / "subs.jsonl", rows)
    speedups = []
    for run in ("a", "b"):
        run_keval(["run", "--suite", "suites/keval", "--submissions", subs, "--out", work / run,
                   "--device", args.device, "--quiet"])
        speedups.append({r["id"]: r["speedup"] for r in results(work / run) if r["speedup"]})
    drift = sorted(abs(speedups[0][i] - speedups[1][i]) / speedups[0][i]
                   for i in speedups[0] if i in speedups[1])
    if not drift:
        raise SystemExit("no submission was timed in both runs")
    p95 = drift[min(len(drift) - 1, int(round(0.95 * (len(drift) - 1))))]
    print(f"repeatability over {len(drift)} submissions: median |dspeedup| {100 * statistics.median(drift):.2f}%, "
          f"p95 {100 * p95:.2f}%, max {100 * drift[-1]:.2f}%")
    for i in sorted(speedups[0]):
        if i in speedups[1]:
            print(f"  {i:24s} {speedups[0][i]:.4f} {speedups[1][i]:.4f}")
    print(f"machine: {gpu_name()}, device {args.device}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
