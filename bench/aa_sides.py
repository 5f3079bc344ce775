"""Both sides of A/A cases, sample by sample: where a bias that stays comes from.

    python bench/aa_sides.py OUT [--tasks argmax,abs] [--cases perf_1,perf_5]

OUT is a run's --out folder (or its keval.db). For each timed case of the chosen tasks, each
side (the candidate, timed in the guest, and its baseline, in the warden): samples, the
median event time, the median of the first and of the last third of its samples (a side
still warming, or drifting), the median gap of its host time over its event time (host work
the launch cover did not hide), its launch cover, the slowest enqueue its cover's fit saw, and
how it stopped. A ratio off 1.00x that
shows in one side's gap or cover, or only in its first samples, points at the harness.
"""
import argparse
import json
import pathlib
import sqlite3
import statistics
import sys


def timing_messages(db: pathlib.Path, tasks: set, cases: set) -> list:
    """(task, timing message) of every timed side, in the run's order."""
    if db.is_dir():
        db = db / "keval.db"
    if not db.is_file():
        raise SystemExit(f"aa_sides: {db}: no such database")
    try:
        rows = sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
            "SELECT task, facts_json FROM evaluations ORDER BY id").fetchall()
    except sqlite3.DatabaseError as exc:
        raise SystemExit(f"aa_sides: {db}: {exc}")
    found = []
    for task, facts in rows:
        if tasks and task not in tasks:
            continue
        timing = (json.loads(facts or "{}") or {}).get("timing") or {}
        for message in timing.get("messages") or []:
            if message.get("type") == "timing" and (not cases or message.get("case") in cases):
                found.append((task, message))
    return found


def side_figures(message: dict) -> dict:
    samples = message.get("samples_ms") or []
    host = message.get("host_samples_ms") or []
    third = max(1, len(samples) // 3)
    gaps = [h - e for h, e in zip(host, samples)]
    return {"n": len(samples), "median": statistics.median(samples) if samples else None,
            "first": statistics.median(samples[:third]) if samples else None,
            "last": statistics.median(samples[-third:]) if samples else None,
            "gap": statistics.median(gaps) if gaps else None,
            "cover": message.get("launch_cover_ms"), "stop": message.get("stop_reason"),
            "fit": max(message.get("cover_fit_enqueues_us") or [], default=None)}


def fmt(value, unit="") -> str:
    return "-" if value is None else f"{value * 1000:.2f}{unit}"


def report(found: list) -> None:
    by_case = {}
    for task, message in found:
        by_case.setdefault((task, message.get("case"), message.get("dtype")), {})[message.get("who")] = message
    print(f"{'task':<22} {'case':<14} {'dtype':<9} {'side':<10} {'n':>4} {'median':>9} {'first 1/3':>9} {'last 1/3':>9} "
          f"{'host gap':>9} {'cover':>8} {'fit':>8}  stop   (times in us; fit: the cover fit's slowest enqueue)")
    for (task, case, dtype), sides in sorted(by_case.items()):
        candidate = side_figures(sides["candidate"]) if "candidate" in sides else None
        for who, message in sorted(sides.items(), key=lambda item: item[0] != "candidate"):
            f = side_figures(message)
            print(f"{task:<22} {case:<14} {dtype:<9} {who:<10} {f['n']:>4} {fmt(f['median']):>9} {fmt(f['first']):>9} "
                  f"{fmt(f['last']):>9} {fmt(f['gap']):>9} {fmt(f['cover']):>8} "
                  f"{'-' if f['fit'] is None else format(f['fit'], '.2f'):>8}  {f['stop']}")
        baselines = [side_figures(m) for w, m in sides.items() if w != "candidate"]
        if candidate and candidate["median"] and baselines and baselines[0]["median"]:
            print(f"{'':<22} {'':<14} {'':<9} ratio      {candidate['median'] / baselines[0]['median']:.4f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path, help="a run's --out folder or its keval.db")
    parser.add_argument("--tasks", default="", help="comma-separated tasks (default: all)")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    args = parser.parse_args(argv)
    found = timing_messages(args.out, set(filter(None, args.tasks.split(","))),
                            set(filter(None, args.cases.split(","))))
    if not found:
        print("no timed case matched", file=sys.stderr)
        return 1
    report(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
