"""Judged candidates per GPU-hour on the core suite: warm forked workers against one fresh
Python process per job, the same jobs in the same run of this script.

usage: python bench/throughput.py [--copies N] [--device cuda|cpu] [--tasks a,b] [--jobs N]
Prints seconds per candidate and the ratio; exits non-zero if keval fails. Also the steady
rate: candidates judged after the first, over the time from the first judgement to the last
(keval.db's `created_at`), which leaves out start-up and the first candidate's chain of jobs;
a small run is mostly those.
"""
import argparse
import datetime
import shutil
import sqlite3
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
    figures, steadies = {}, {}
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
        steady = steady_seconds_per_candidate(out / "keval.db")
        if steady is not None:
            steadies[name] = steady[0] / steady[1]
            print(f"{'':5s}  steady: {steady[1]} candidates after the first in {steady[0]:.0f} s = "
                  f"{steady[0] / steady[1]:.2f} s/candidate")
    if "fresh" in figures:
        print(f"ratio fresh/warm: {figures['fresh'] / figures['warm']:.2f}x fewer seconds with warm workers")
    if "fresh" in steadies and "warm" in steadies:
        print(f"steady ratio fresh/warm: {steadies['fresh'] / steadies['warm']:.2f}x")
    print(f"machine: {gpu_name()}, device {args.device}, jobs per GPU {args.jobs}, "
          f"{len(tasks)} tasks x {args.copies} copies x (correct + broken)")
    shutil.rmtree(work, ignore_errors=True)


def steady_seconds_per_candidate(db):
    """(seconds from the first judgement to the last, candidates judged after the first), or
    None with fewer than two or all in the same second (created_at has whole seconds)."""
    with sqlite3.connect(db) as connection:
        stamps = sorted(datetime.datetime.fromisoformat(row[0].replace("Z", "+00:00"))
                        for row in connection.execute("SELECT created_at FROM evaluations"))
    if len(stamps) < 2 or stamps[-1] == stamps[0]:
        return None
    return (stamps[-1] - stamps[0]).total_seconds(), len(stamps) - 1


def pathlib_tmp():
    import pathlib
    return pathlib.Path(tempfile.mkdtemp(prefix="keval-bench-"))


if __name__ == "__main__":
    main()
