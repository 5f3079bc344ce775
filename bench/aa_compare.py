"""A/A runs side by side: noise that changes from run to run, or a bias that stays.

    python bench/aa_compare.py new=RUN1,RUN2 old=RUN3,RUN4 [--off 0.03]

Each RUN is an A/A run's results.jsonl or its --out folder (bench/aa_bias.py). For each group
and each band of the baseline's time: every run's p95 |ratio - 1| and median samples, and the
correlation of the log-ratios of the cases two runs share. Runs of one harness whose ratios
correlate near 0 differ by noise; a correlation well above 0, or a case off by more than --off
the same way in every run of a group, is a bias of that harness: a cause to find, which more
samples will not remove.
"""
import argparse
import itertools
import json
import math
import pathlib
import statistics
import sys

from aa_bias import BANDS_MS, quantile


def cases(path: pathlib.Path) -> dict:
    """{(task, case): case row} of the passing A/A submissions' timed cases."""
    if path.is_dir():
        path = path / "results.jsonl"
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise SystemExit(f"aa_compare: {path}: {exc.strerror}")
    out = {}
    for number, line in enumerate(lines, 1):
        try:
            result = json.loads(line)
        except json.JSONDecodeError:
            raise SystemExit(f"aa_compare: {path}:{number}: not a JSON line")
        if result.get("verdict") != "pass":
            continue
        for case in result.get("cases") or []:
            if case.get("time_ms") and case.get("ref_time_ms"):
                out[(result["task"], case["case"])] = case
    return out


def log_ratio(case: dict) -> float:
    return math.log(case["time_ms"] / case["ref_time_ms"])


def correlation(xs: list, ys: list):
    """Pearson's r, or None where either side does not vary."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sx = math.sqrt(sum((x - mx) ** 2 for x in xs))
    sy = math.sqrt(sum((y - my) ** 2 for y in ys))
    if not sx or not sy:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (sx * sy)


def band_of(ms: float) -> int:
    return next(index for index, high in enumerate(BANDS_MS) if ms < high)


def band_name(index: int) -> str:
    low = BANDS_MS[index - 1] if index else 0.0
    return f"{low:g} to {BANDS_MS[index]:g} ms"


def persistent(runs: list, off: float) -> list:
    """[(key, [ratio per run])] of the cases every run timed, off 1.00x by more than `off` the
    same way in each."""
    shared = set.intersection(*(set(run) for run in runs))
    found = []
    for key in sorted(shared):
        ratios = [run[key]["time_ms"] / run[key]["ref_time_ms"] for run in runs]
        if all(r > 1 + off for r in ratios) or all(r < 1 - off for r in ratios):
            found.append((key, ratios))
    return found


def compare_group(name: str, paths: list, runs: list, off: float) -> None:
    print(f"== {name}: " + ", ".join(f"run {i + 1} {path}" for i, path in enumerate(paths)))
    for index in range(len(BANDS_MS)):
        line = []
        for number, run in enumerate(runs, 1):
            band = [c for c in run.values() if band_of(c["ref_time_ms"]) == index]
            if band:
                p95 = quantile([abs(math.exp(log_ratio(c)) - 1) for c in band], 0.95)
                samples = statistics.median(c.get("samples") or 0 for c in band)
                line.append(f"run {number}: p95 {p95:.2%}, median samples {samples:g}")
        if not line:
            continue
        print(f"  baseline {band_name(index)}: " + "; ".join(line))
        for (a, run_a), (b, run_b) in itertools.combinations(enumerate(runs), 2):
            keys = [k for k in run_a if k in run_b and band_of(run_a[k]["ref_time_ms"]) == index]
            r = correlation([log_ratio(run_a[k]) for k in keys], [log_ratio(run_b[k]) for k in keys]) \
                if len(keys) > 2 else None
            shown = "-" if r is None else f"{r:+.2f}"
            print(f"    runs {a + 1} and {b + 1}: {len(keys)} shared cases, correlation {shown}")
    stays = persistent(runs, off)
    print(f"  off by more than {off:.0%} the same way in every run: {len(stays)} cases")
    for (task, case), ratios in stays:
        print(f"    {task} {case}: " + " ".join(f"{r:.4f}x" for r in ratios))


def parse_group(text: str) -> tuple:
    name, sep, paths = text.partition("=")
    if not sep or not name or not paths:
        raise SystemExit(f"aa_compare: {text!r}: expected NAME=RUN[,RUN...]")
    return name, [pathlib.Path(p) for p in paths.split(",")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="+", help="NAME=RUN[,RUN...]: A/A results.jsonl files or --out folders")
    parser.add_argument("--off", type=float, default=0.03, help="a case off 1.00x by more than this in every run")
    args = parser.parse_args(argv)
    for name, paths in map(parse_group, args.groups):
        compare_group(name, paths, [cases(p) for p in paths], args.off)
    return 0


if __name__ == "__main__":
    sys.exit(main())
