"""A/A: the baseline implementation submitted as the candidate and timed against itself.

Any ratio away from 1.00x is bias or noise of the harness, never of the code. Prints the
per-case ratios' distribution (median, p95 and worst of |ratio - 1|), each task's median, the
spread in bands of the baseline's time, and how many speedup intervals hold 1.00x.

    python bench/aa_bias.py --suite suites/keval --tasks 'vector_add,relu' --device cuda --out DIR
    python bench/aa_bias.py --suite kernelbenchx:CHECKOUT:any-code --device cuda --out DIR
    python bench/aa_bias.py --from DIR          # only read a finished run's results.jsonl
    python bench/aa_bias.py --suite kernelbenchx:CHECKOUT:any-code --baseline golden,eager ...

A suite folder's goldens are submitted as `aa:<task>` with `--baseline golden`. A peer suite
(KIND:CHECKOUT[:any-code]) goes through `keval validate`, whose goldens are the peer's own
references timed against themselves. `--bound B` exits 1 when the median ratio is off 1.00x by
more than B (the CPU check in CI: tests/aa). `--baseline A,B`: the baselines timed (default
golden for a suite folder, eager for a peer's); each further one is also set against the first,
both timed in the warden: with `golden,eager` the first table is the golden in the guest against
itself in the warden, the second eager PyTorch against the golden in one process, which tells a
bias of the two processes from one of the two code paths.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))


def golden_submissions(suite: pathlib.Path, path: pathlib.Path) -> int:
    """Writes every golden of the suite as a submission of its own task; returns how many."""
    count = 0
    with open(path, "w") as out:
        for golden in sorted(suite.glob("*/golden.py")):
            task = golden.parent.name
            out.write(json.dumps({"task": task, "id": f"aa:{task}", "code": golden.read_text()}) + "\n")
            count += 1
    return count


def timed_cases(results_path: pathlib.Path, other=None) -> list:
    """(task, baseline ms, ratio) of the passing submissions' timed cases: the candidate's time
    over the first baseline's, or with `other`, that further baseline's (cases[].baseline_ms)."""
    found = []
    for line in results_path.read_text().splitlines():
        result = json.loads(line)
        if result.get("verdict") != "pass":
            continue
        for case in result.get("cases") or []:
            ms = case.get("time_ms") if other is None else (case.get("baseline_ms") or {}).get(other)
            if ms and case.get("ref_time_ms"):
                found.append((result["task"], case["ref_time_ms"], ms / case["ref_time_ms"]))
    return found


def other_baselines(results_path: pathlib.Path) -> list:
    """The further baselines the run timed (names in cases[].baseline_ms), in name order."""
    names = set()
    for line in results_path.read_text().splitlines():
        for case in json.loads(line).get("cases") or []:
            names.update(case.get("baseline_ms") or {})
    return sorted(names)


def ratios(results_path: pathlib.Path, other=None) -> dict:
    """{task: [per-case ratio]} of the passing A/A submissions (see timed_cases)."""
    for line in results_path.read_text().splitlines():
        result = json.loads(line)
        if other is None and result.get("verdict") != "pass":
            print(f"  {result['id']}: {result['verdict']} (not counted)")
    by_task = {}
    for task, _, ratio in timed_cases(results_path, other):
        by_task.setdefault(task, []).append(ratio)
    return by_task


def quantile(values: list, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(by_task: dict) -> dict:
    every = [r for values in by_task.values() for r in values]
    if not every:
        print("no passing case was timed")
        return {}
    deviations = [abs(r - 1) for r in every]
    summary = {"cases": len(every), "tasks": len(by_task), "median": statistics.median(every),
               "p95_abs_dev": quantile(deviations, 0.95), "worst": max(every, key=lambda r: abs(r - 1))}
    print(f"{'task':<28} {'cases':>5} {'median':>8} {'worst':>8}")
    for task, values in sorted(by_task.items()):
        worst = max(values, key=lambda r: abs(r - 1))
        print(f"{task:<28} {len(values):>5} {statistics.median(values):>7.4f}x {worst:>7.4f}x")
    print(f"overall: {summary['cases']} cases of {summary['tasks']} tasks, median {summary['median']:.4f}x, "
          f"p95 |ratio-1| {summary['p95_abs_dev'] * 100:.2f}%, worst {summary['worst']:.4f}x")
    return summary


# Upper bounds (ms) of the baseline-time bands the spread is also shown by: a few-µs kernel's
# time depends on where its buffers lie, and a call that waits for the GPU keeps host time in.
BANDS_MS = (0.01, 0.05, 0.5, float("inf"))


def report_by_time(results_path: pathlib.Path, other=None) -> None:
    """The spread of the passing cases' ratios in bands of the baseline's time."""
    pairs = [(ms, ratio) for _, ms, ratio in timed_cases(results_path, other)]
    low = 0.0
    for high in BANDS_MS:
        band = [ratio for ms, ratio in pairs if low <= ms < high]
        if band:
            deviations = [abs(r - 1) for r in band]
            print(f"baseline {low:g} to {high:g} ms: {len(band)} cases, median {statistics.median(band):.4f}x, "
                  f"p95 |ratio-1| {quantile(deviations, 0.95) * 100:.2f}%, worst {max(deviations) * 100:.1f}% off")
        low = high


def interval_coverage(results_path: pathlib.Path) -> tuple:
    """(held, cases): how many passing cases' speedup intervals hold 1.00x. In an A/A run the
    true ratio is 1: a 95% interval that holds it far less often than 95% of the time claims a
    precision the harness does not have."""
    held = cases = 0
    for line in results_path.read_text().splitlines():
        result = json.loads(line)
        if result.get("verdict") != "pass":
            continue
        for case in result.get("cases") or []:
            interval = case.get("speedup_ci")
            if isinstance(interval, list) and len(interval) == 2:
                cases += 1
                held += interval[0] <= 1.0 <= interval[1]
    return held, cases


def report_interval_coverage(results_path: pathlib.Path) -> None:
    held, cases = interval_coverage(results_path)
    if cases:
        print(f"speedup intervals holding 1.00x: {held} of {cases} ({held / cases:.1%}; "
              f"a 95% interval should hold it in about 95%)")


def run_command(args, out: pathlib.Path) -> list:
    """The keval command of an A/A run of args.suite into out."""
    limits = []
    for flag in ("max_samples", "min_samples", "max_seconds"):
        if getattr(args, flag):
            limits += ["--" + flag.replace("_", "-"), getattr(args, flag)]
    common = ["--out", str(out), "--device", args.device, "--jobs", args.jobs, *limits]
    if args.baseline:
        common += ["--baseline", args.baseline]
    if ":" in args.suite:  # a peer's checkout: its references are the goldens
        command = [KEVAL, "validate", "--suite", args.suite, *common]
    else:
        submissions = out.parent / (out.name + "-submissions.jsonl")
        golden_submissions(pathlib.Path(args.suite), submissions)
        command = [KEVAL, "run", "--suite", args.suite, "--submissions", str(submissions), *common,
                   *([] if args.baseline else ["--baseline", "golden"]), "--quiet"]
    return command + (["--tasks", args.tasks] if args.tasks else [])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", help="suite folder whose goldens are submitted")
    parser.add_argument("--tasks", help="task globs, comma-separated")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--out", help="output folder of the A/A run")
    parser.add_argument("--from", dest="source", help="read this finished run instead of running one")
    parser.add_argument("--max-samples", help="timing samples per case at most (keval run's flag)")
    parser.add_argument("--min-samples", help="timing samples per case at least (keval run's flag; with the same "
                        "--max-samples, a record for bench/stop_rule_replay.py)")
    parser.add_argument("--max-seconds", help="timing seconds per case at most (keval run's flag)")
    parser.add_argument("--bound", type=float, help="exit 1 when |median - 1| exceeds this")
    parser.add_argument("--baseline", help="baselines to time, comma-separated (keval's --baseline)")
    args = parser.parse_args(argv)
    if args.source:
        out = pathlib.Path(args.source)
    else:
        if not (args.suite and args.out):
            parser.error("give --suite and --out, or --from")
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        if subprocess.run(run_command(args, out), stdout=subprocess.DEVNULL).returncode not in (0, 1):
            print(f"aa_bias: keval into {out} failed", file=sys.stderr)
            return 1
    results = out / "results.jsonl"
    if not results.exists():
        print(f"aa_bias: {results}: no results", file=sys.stderr)
        return 1
    summary = report(ratios(results))
    report_by_time(results)
    report_interval_coverage(results)
    for other in other_baselines(results):
        print(f"\n{other} against the first baseline, both in the warden:")
        report(ratios(results, other))
        report_by_time(results, other)
    if args.bound is not None:
        if not summary or abs(summary["median"] - 1) > args.bound:
            print(f"aa_bias: median off 1.00x by more than {args.bound:.0%}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
