"""The predictor's settings chosen by grouped cross-validation on the train split alone, and what
each feature family adds (docs/dataset.md, "Baseline predictor").

usage: python bench/predictor_cv.py --data EXPORT [--folds 5] [--seed S] [--compiled] [--feature-cache DIR]

Holds out whole clusters of near-copy tasks of EXPORT's train split `--folds` ways
(keval_dataset/cv_folds.py) and prints, per ranking method (lambdarank, LightGBM regression,
ridge) and setting, the mean over folds of the within-problem Spearman and best-within-5%, the
setting with the best Spearman, then lambdarank with that setting on the text features alone and
with the launch, compiled-kernel, hardware-model (hardware_model.py) and within-problem features
added in turn. The test split is
not read. ranking_models.PARAMETERS should hold the settings chosen here.
"""
import argparse
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "runner"))

from keval_dataset.model_selection import select  # noqa: E402


def fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compiled", action="store_true",
                    help="add the compiled-kernel features (about 0.6 CPU-seconds a distinct kernel, once)")
    ap.add_argument("--feature-cache", help="the launches and compiled kernels to read (default $KEVAL_FEATURE_CACHE): "
                                            "a folder `python -m keval_dataset compile-cache` built")
    args = ap.parse_args()
    if args.feature_cache:
        os.environ["KEVAL_FEATURE_CACHE"] = args.feature_cache  # every feature_matrix call reads it
    result = select(args.data, args.folds, args.seed, compiled=args.compiled)
    print(f"train: {result['rows']} timed rows, {result['problems']} problems, {result['features']} features; "
          f"{args.folds} folds of whole task clusters")
    print(f"{'method':<12}{'setting':<42}{'Spearman':>10}{'best 5%':>9}   Spearman per fold")
    for method, found in result["methods"].items():
        for tried in found["tried"]:
            mark = " *" if tried is found["chosen"] else ""
            setting = json.dumps(tried["parameters"], sort_keys=True)
            print(f"{method:<12}{setting:<42}{fmt(tried['spearman']):>10}{fmt(tried['best_within_5pct']):>9}   "
                  f"{' '.join(fmt(v) for v in tried['folds'])}{mark}")
    print("\nlambdarank (chosen setting) by feature family, each adding to the one above")
    for family, tried in result["families"].items():
        print(f"{family:<14}{fmt(tried['spearman']):>10}{fmt(tried['best_within_5pct']):>9}   "
              f"{' '.join(fmt(v) for v in tried['folds'])}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
