"""Mutation kill rate: `keval mutate` over a --tasks glob, then each task's and the whole run's
share of non-equivalent mutants killed (killed / (killed + survived); equivalent mutants, proven
by the differential check, and invalid ones are counted apart).

    python bench/mutation_kill_rate.py --suite suites/keval --tasks 'softmax,layer_norm' \
        --device cpu --out DIR
    python bench/mutation_kill_rate.py --from DIR      # only read a finished run's mutants.json

A run folder is resumable (keval.db, and the differential check's evidence in DIR/equivalence):
running again over the same DIR judges only what is new. `--min-rate R` exits 1 when the overall
kill rate is below R (a fraction), and `--min-task-rate R` when any task's is.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))


def run_mutate(args) -> float:
    command = [KEVAL, "mutate", "--suite", args.suite, "--out", args.out, "--device", args.device,
               "--equivalence-trials", str(args.equivalence_trials)]
    if args.tasks:
        command += ["--tasks", args.tasks]
    if args.jobs:
        command += ["--jobs", str(args.jobs)]
    started = time.monotonic()
    proc = subprocess.run(command)
    if proc.returncode != 0:
        sys.exit(f"keval mutate exited {proc.returncode}")
    return time.monotonic() - started


def rate(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def print_table(report: dict) -> None:
    print(f"{'task':<28} {'made':>5} {'killed':>6} {'surv':>5} {'equiv':>5} {'inval':>5} {'kill rate':>9}")
    for task, t in sorted(report["tasks"].items()):
        print(f"{task:<28} {t['made']:>5} {t['killed']:>6} {t['survived']:>5} {t['equivalent']:>5} "
              f"{t['invalid']:>5} {rate(t['kill_rate']):>9}" + ("  (golden fails: not counted)" if t.get("note") else ""))
    s = report["suite"]
    print(f"{'all':<28} {s['made']:>5} {s['killed']:>6} {s['survived']:>5} {s['equivalent']:>5} "
          f"{s['invalid']:>5} {rate(s['kill_rate']):>9}")
    print(f"device: {report['device_mode']}; unjudged: {s['unjudged']}")
    for task, t in sorted(report["tasks"].items()):
        for survivor in t["survivors"]:
            print(f"  survived {survivor['id']}: {survivor['equivalence'] or 'not checked for equivalence'}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="suites/keval")
    p.add_argument("--tasks", default="", help="a --tasks glob (default: every task)")
    p.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"])
    p.add_argument("--out", help="the keval mutate output folder")
    p.add_argument("--jobs", type=int, default=0)
    p.add_argument("--equivalence-trials", type=int, default=42)
    p.add_argument("--from", dest="from_dir", help="read DIR/mutants.json without running")
    p.add_argument("--min-rate", type=float)
    p.add_argument("--min-task-rate", type=float)
    args = p.parse_args()
    folder = args.from_dir or args.out
    if not folder:
        p.error("--out DIR (or --from DIR) is required")
    if not args.from_dir:
        wall = run_mutate(args)
        print(f"keval mutate took {wall:.0f} s")
    path = os.path.join(folder, "mutants.json")
    try:
        report = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as exc:
        sys.exit(f"{path}: cannot read the report: {exc}")
    print_table(report)
    failed = False
    overall = report["suite"]["kill_rate"]
    if args.min_rate is not None and (overall is None or overall < args.min_rate):
        print(f"kill rate {rate(overall)} below --min-rate {rate(args.min_rate)}")
        failed = True
    if args.min_task_rate is not None:
        low = [t for t, v in report["tasks"].items() if v["kill_rate"] is not None and v["kill_rate"] < args.min_task_rate]
        if low:
            print(f"below --min-task-rate {rate(args.min_task_rate)}: {', '.join(sorted(low))}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
