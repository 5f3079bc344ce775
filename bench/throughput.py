"""Judged candidates per GPU-hour on the core suite: warm forked workers against one fresh
Python process per job, the same jobs in the same run of this script.

usage: python bench/throughput.py [--copies N] [--device cuda|cpu] [--tasks a,b] [--jobs N]
Prints seconds per candidate and the ratio; exits non-zero if keval fails.
"""
import argparse
import shutil
import tempfile

from common import CORE_TASKS, broken, gpu_name, golden_code, results, run_keval, variant, write_jsonl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--copies", type=int, default=2, help="correct and broken copies per task")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tasks", default=",".join(CORE_TASKS))
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--skip-fresh", action="store_true", help="measure warm workers only")
    args = ap.parse_args()
    tasks = args.tasks.split(",")
    work = pathlib_tmp()
    rows = []
    for task in tasks:
        for n in range(args.copies):
            rows.append({"task": task, "id": f"{task}-ok-{n}", "code": variant(golden_code(task), n)})
            rows.append({"task": task, "id": f"{task}-bad-{n}", "code": variant(broken(golden_code(task)), n)})
    modes = [("warm", [])] + ([] if args.skip_fresh else [("fresh", ["--fresh-process"])])
    figures = {}
    for name, extra in modes:
        subs = write_jsonl(work / f"{name}.jsonl", [dict(r, id=f"{r['id']}-{name}", code=r["code"] + f"\n# {name}\n") for r in rows])
        out = work / f"out-{name}"
        seconds = run_keval(["run", "--suite", "suites/keval", "--submissions", subs, "--out", out,
                             "--device", args.device, "--jobs", args.jobs, "--quiet", *extra])
        verdicts = [r["verdict"] for r in results(out)]
        figures[name] = seconds
        print(f"{name:5s}: {len(rows)} candidates in {seconds:.1f} s = {seconds / len(rows):.2f} s/candidate "
              f"= {3600 * len(rows) / seconds:.0f} candidates/device-hour "
              f"(pass {verdicts.count('pass')}, other {len(verdicts) - verdicts.count('pass')})")
    if "fresh" in figures:
        print(f"ratio fresh/warm: {figures['fresh'] / figures['warm']:.2f}x fewer seconds with warm workers")
    print(f"machine: {gpu_name()}, device {args.device}, jobs per GPU {args.jobs}, "
          f"{len(tasks)} tasks x {args.copies} copies x (correct + broken)")
    shutil.rmtree(work, ignore_errors=True)


def pathlib_tmp():
    import pathlib
    return pathlib.Path(tempfile.mkdtemp(prefix="keval-bench-"))


if __name__ == "__main__":
    main()
