"""Stopping rules replayed on a finished A/A run's samples: how many rounds, and how far off.

    python bench/stop_rule_replay.py OUT [OUT...] [--min-samples 10] [--spread-share S] [--round-ms 6.3]

OUT is an A/A run's --out folder (or its keval.db): the same code timed as candidate and as
baseline, so every ratio should read 1.00x. For each timed case the recorded samples of the
candidate and its first baseline are replayed in their order, round by round (each side's
sample k in round k, as the runner takes them), under each rule with the run's own bounds
(`--min-samples` in place of the run's, so a record made with many samples replays the
default; `--spread-share` in place of the run's, to try another): `runner` (keval_runner.timing.timing.stop_reason, the rule keval runs), `median-error`
(the median's standard error read from the order statistics around it, against the same
bounds: a few slow outliers move it little) and `mad` (1.4826 x the median absolute
deviation over the median, in place of the stdev over the mean). A case stops in the first
round by which both sides have stopped; the ratio of the two medians then is its A/A error.

A rule that would sample longer than the run did stops where the run did ("at end"), so its
rounds are a lower bound and its error is the run's: compare rules fairly only on a record
where no case ran out (`keval validate --min-samples 100 --max-samples 100 --max-seconds 10`;
`AA_SAMPLES=100 scripts/gpu-validate.sh aa-kbx`). A record made with the runner's rule ends
where that rule stopped, which favours it against any other.

Printed per band of the baseline's median (under 10 us, 10-50, 50-500, 0.5 ms or more) and
overall: cases, rounds, an estimate of the time they take (rounds x (round-ms + both sides'
medians); round-ms: the time alone a round of samples took beyond the calls, 6.3 ms on the
H200 in KernelBenchX's A/A, bench/runs/2026-12-04-session-23.md), the p95 and largest
|ratio - 1|, and the cases at the record's end.
"""
import argparse
import json
import math
import os
import pathlib
import sqlite3
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "runner"))

from aa_sides import timing_messages  # noqa: E402
from keval_runner.timing.timing import MEDIAN_ERROR_FACTOR, spread_error, stop_reason  # noqa: E402

Z_95 = 1.959964
BANDS = [("under 10 us", 0.0, 0.01), ("10-50 us", 0.01, 0.05), ("50-500 us", 0.05, 0.5), ("0.5 ms+", 0.5, math.inf)]


def run_settings(db: pathlib.Path) -> tuple:
    """(the timing settings the run sent its jobs, its first baseline), from its runs row."""
    row = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
        "SELECT settings_json FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    settings = json.loads(row[0] or "{}") if row else {}
    return settings.get("timing") or {}, (settings.get("baselines") or ["golden"])[0]


def _converged(samples: list, settings: dict, relative_error) -> bool:
    """The runner's bounds on the median's relative standard error, estimated by `relative_error`."""
    n, least = len(samples), int(settings.get("min_samples", 10))
    if n < max(2, least):
        return False
    allowed = MEDIAN_ERROR_FACTOR * float(settings.get("target_rel_stdev", 0.005)) / math.sqrt(max(1, least))
    return relative_error(samples) <= max(allowed, spread_error(statistics.median(samples), settings))


def order_statistics_error(samples: list) -> float:
    """Half the width of the median's distribution-free 95% interval (the samples at ranks
    n/2 -+ 1.96 sqrt(n)/2), over 1.96, over the median."""
    ordered, n = sorted(samples), len(samples)
    half = Z_95 * math.sqrt(n) / 2
    low, high = max(0, math.floor(n / 2 - half)), min(n - 1, math.ceil(n / 2 + half) - 1)
    return (ordered[high] - ordered[low]) / (2 * Z_95) / statistics.median(ordered)


def mad_error(samples: list) -> float:
    middle = statistics.median(samples)
    spread = 1.4826 * statistics.median(abs(x - middle) for x in samples)
    return MEDIAN_ERROR_FACTOR * spread / middle / math.sqrt(len(samples))


def runner_rule(samples: list, settings: dict) -> bool:
    # time is not replayed: no time cap, min_seconds taken as met
    return stop_reason(samples, 1e9, dict(settings, max_seconds=1e9, max_samples=10**9, min_seconds=0.0)) == "converged"


RULES = {"runner": runner_rule,
         "median-error": lambda samples, settings: _converged(samples, settings, order_statistics_error),
         "mad": lambda samples, settings: _converged(samples, settings, mad_error)}


def paired_cases(db: pathlib.Path, baseline: str) -> list:
    """(candidate samples, baseline samples) of every timed case both sides measured."""
    by_case = {}
    for task, message in timing_messages(db, set(), set()):
        by_case.setdefault((task, message.get("case"), message.get("dtype")), {})[message.get("who")] = message
    pairs = []
    for sides in by_case.values():
        candidate, other = sides.get("candidate"), sides.get(baseline)
        if candidate and other and candidate.get("samples_ms") and other.get("samples_ms"):
            pairs.append((candidate["samples_ms"], other["samples_ms"]))
    return pairs


def replay(candidate: list, baseline: list, rule, settings: dict) -> tuple:
    """(rounds, ratio of the medians then, whether it ran to the recorded end)."""
    recorded = min(len(candidate), len(baseline))
    stopped = [None, None]
    for n in range(1, recorded + 1):
        for side, samples in enumerate((candidate, baseline)):
            if stopped[side] is None and rule(samples[:n], settings):
                stopped[side] = n
        if None not in stopped:
            break
    rounds = n if None not in stopped else recorded
    return rounds, statistics.median(candidate[:rounds]) / statistics.median(baseline[:rounds]), None in stopped


def p95(values: list) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else math.nan


def summarize(rows: list, round_ms: float) -> dict:
    """rows: (baseline median ms, rounds, ratio, ran to the end)."""
    errors = [abs(ratio - 1) for _, _, ratio, _ in rows]
    return {"cases": len(rows), "rounds": sum(r for _, r, _, _ in rows),
            "seconds": sum(r * (round_ms + 2 * ms) for ms, r, _, _ in rows) / 1e3,
            "p95": p95(errors), "worst": max(errors, default=math.nan),
            "at_end": sum(1 for *_, end in rows if end)}


def report(dbs: list, round_ms: float, min_samples: int, spread_share=None) -> dict:
    results = {}
    for name, rule in RULES.items():
        rows = []
        for db in dbs:
            settings, first_baseline = run_settings(db)
            settings = dict(settings, min_samples=min_samples)
            if spread_share is not None:
                settings["spread_share"] = spread_share
            for candidate, baseline in paired_cases(db, first_baseline):
                rounds, ratio, at_end = replay(candidate, baseline, rule, settings)
                rows.append((statistics.median(baseline), rounds, ratio, at_end))
        results[name] = {band: summarize([r for r in rows if lo <= r[0] < hi], round_ms) for band, lo, hi in BANDS}
        results[name]["overall"] = summarize(rows, round_ms)
    print(f"{'rule':<12} {'band':<12} {'cases':>5} {'rounds':>7} {'est. s':>7} {'p95 off':>8} {'worst':>7} {'at end':>6}")
    for name, bands in results.items():
        for band, s in bands.items():
            print(f"{name:<12} {band:<12} {s['cases']:>5} {s['rounds']:>7} {s['seconds']:>7.1f} {100 * s['p95']:>7.2f}% "
                  f"{100 * s['worst']:>6.2f}% {s['at_end']:>6}")
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="+", type=pathlib.Path, help="A/A runs' --out folders or keval.db files")
    parser.add_argument("--min-samples", type=int, default=10, help="the rules' min_samples (keval's default)")
    parser.add_argument("--spread-share", type=float, help="the rules' spread_share (default: the run's)")
    parser.add_argument("--round-ms", type=float, default=6.3, help="time alone a round takes beyond the calls")
    args = parser.parse_args(argv)
    dbs = []
    for out in args.out:
        db = out / "keval.db" if out.is_dir() else out
        if not db.is_file():
            print(f"stop_rule_replay: {db}: no such database", file=sys.stderr)
            return 2
        dbs.append(db)
    report(dbs, args.round_ms, args.min_samples, args.spread_share)
    return 0


if __name__ == "__main__":
    sys.exit(main())
