"""The baseline latency predictor beside the noise ceiling (docs/dataset.md, "Baseline").

usage: python bench/latency_baseline.py --data EXPORT [--retime EXPORT2] [--model FILE] [--group full]

EXPORT is a `keval dataset export` folder; EXPORT2 an export of a second timing of (some of) the
same programs. Trains `keval predict` on EXPORT's train split, evaluates on its held-out problems
and prints the figures beside the test-retest within-problem Spearman: no predictor can be
judged above that ceiling.
"""
import argparse
import json
import pathlib
import os
import subprocess
import tempfile

from common import KEVAL, keval_python


def keval_json(args) -> dict:
    env = dict(os.environ, KEVAL_PYTHON=keval_python())
    proc = subprocess.run([KEVAL, *map(str, args)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"keval {args[0]} {args[1]} failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--retime")
    ap.add_argument("--model")
    ap.add_argument("--group", default="full")
    args = ap.parse_args()
    model = args.model or str(pathlib.Path(tempfile.mkdtemp(prefix="keval-predict-")) / "model.pkl")
    trained = keval_json(["predict", "train", "--data", args.data, "--model", model])
    report = keval_json(["predict", "eval", "--data", args.data, "--model", model, "--group", args.group])
    ceiling = keval_json(["predict", "noise", "--first", args.data, "--second", args.retime]) if args.retime else {}
    fmt = lambda v: "n/a" if v is None else f"{v:.3f}"  # noqa: E731
    print(f"train rows {trained['train_rows']} (timed {trained['timed_rows']}, failed {trained['failed_rows']}); "
          f"held-out `{args.group}`: {report['problems']} problems, {report['rows']} rows")
    print(f"{'figure':<36}{'baseline':>10}{'noise ceiling':>16}")
    print(f"{'within-problem Spearman (mean)':<36}{fmt(report.get('spearman')):>10}{fmt(ceiling.get('spearman')):>16}")
    print(f"{'within-problem Kendall (mean)':<36}{fmt(report.get('kendall')):>10}{fmt(ceiling.get('kendall')):>16}")
    print(f"{'predicted best within 5% (share)':<36}{fmt(report.get('best_within_5pct')):>10}{'':>16}")
    print(f"{'MAPE':<36}{fmt(report.get('mape')):>10}{'':>16}")
    print(f"{'fail/null AUROC':<36}{fmt(report.get('fail_auroc')):>10}{'':>16}")
    if ceiling:
        print(f"noise ceiling from {ceiling['programs_timed_twice']} programs timed twice over {ceiling['problems']} "
              f"problems; median |Δ|/t {fmt(ceiling.get('median_relative_difference'))}")
    print(json.dumps({"baseline": report, "noise_ceiling": ceiling}))


if __name__ == "__main__":
    main()
