"""keval's latency predictor beside the simple rules and the noise ceiling, in one run on one split
(docs/dataset.md, "Baseline predictor").

usage: python bench/latency_baseline.py --data EXPORT [--retime EXPORT2] [--group full] [--seed S] [--folds K]
       [--compiled] [--feature-cache DIR]

EXPORT is a `keval dataset export` folder; EXPORT2 an export of a second timing of (some of) the
same programs. Trains on EXPORT's train split and prints, for the held-out group's problems, the
mean within-problem Spearman, the share of problems whose predicted-fastest program is within 5%
of the fastest, and MAPE, each with a 95% bootstrap interval over problems, for: keval's
predictor (lambdarank), LightGBM regression and ridge on the same features, the golden-distance
rule, the train median, and the noise ceiling. The features include each program's launches,
found without a GPU (its host code run on fake tensors, about a minute for keval-latency-h200-v1)
and cached ($KEVAL_FEATURE_CACHE, else ~/.cache/keval/features); --compiled adds its main kernel
compiled for sm_90 (about 0.6 CPU-seconds for each of 2,203 distinct kernels, once; or read from a
folder built on a machine with more cores, --feature-cache DIR: scripts/device-compile-cache.sh).
With --folds K it also holds out train's clusters of tasks K ways and prints each method's mean over the
folds (one `full` group is few tasks; the folds are more).
"""
import argparse
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "runner"))

from keval_dataset.comparison import compare, cross_validate  # noqa: E402


def cell(figure) -> str:
    if not figure or figure.get("mean") is None:
        return "n/a"
    return f"{figure['mean']:.3f} [{figure['low']:.3f}, {figure['high']:.3f}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--retime")
    ap.add_argument("--group", default="full")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compiled", action="store_true",
                    help="add the compiled-kernel features (about 0.6 CPU-seconds a distinct kernel, once)")
    ap.add_argument("--feature-cache", help="the launches and compiled kernels to read (default $KEVAL_FEATURE_CACHE): "
                                            "a folder `python -m keval_dataset compile-cache` built")
    ap.add_argument("--folds", type=int, default=0)
    args = ap.parse_args()
    if args.feature_cache:
        os.environ["KEVAL_FEATURE_CACHE"] = args.feature_cache  # every feature_matrix call reads it
    result = compare(args.data, args.retime, args.group, args.seed, args.compiled)
    print(f"train rows {result['train_rows']} (timed {result['timed_train_rows']}); held-out `{args.group}`: "
          f"{result['problems']} problems, {result['test_rows']} timed rows"
          + (f"; noise ceiling on {result['noise_ceiling_rows']} rows timed twice" if args.retime else ""))
    print(f"{'method':<17}{'within-problem Spearman':>28}{'best within 5%':>28}{'MAPE':>28}")
    for name, figures in result["methods"].items():
        print(f"{name:<17}{cell(figures['spearman']):>28}{cell(figures['best_within_5pct']):>28}"
              f"{cell(figures['ape']):>28}")
    print("(mean over problems [95% bootstrap interval over problems]; Spearman over problems with >= 3 "
          "timed programs; the rule and the constant predict no level or no order: n/a)")
    if args.folds:
        folds = cross_validate(args.data, args.folds, args.seed, args.compiled)
        result["cross_validation"] = folds
        print(f"\n{args.folds}-fold over train's tasks (mean of the fold means)")
        print(f"{'method':<17}{'Spearman':>12}{'best within 5%':>16}{'MAPE':>10}   Spearman per fold")
        for name, figures in folds.items():
            fmt = lambda v: "n/a" if v is None else f"{v:.3f}"  # noqa: E731
            print(f"{name:<17}{fmt(figures['spearman']['mean']):>12}{fmt(figures['best_within_5pct']['mean']):>16}"
                  f"{fmt(figures['ape']['mean']):>10}   {' '.join(fmt(v) for v in figures['spearman']['folds'])}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
