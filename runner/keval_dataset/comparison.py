"""keval's predictor beside the simple rules, on one split, each figure with a bootstrap interval
over problems (bench/latency_baseline.py prints it; docs/dataset.md, "Baseline predictor").

Methods, all trained on the export's train split and judged on one held-out group's timed rows:
`keval` (predictor.py: lambdarank's order), `regression` (LightGBM on log latency less the
problem's mean) and `ridge` (ridge regression of the same target), all three on the same
features and with the same level (keval's regressor: their MAPE differs by the spread alone);
`golden_distance` (the rule: the nearer a variant's tuning constants to the golden's, the faster;
no training, no level, so no MAPE), `train_median` (every row the train split's median: no order,
so its best pick is the first row) and, given a second timing, the `noise_ceiling` (the second
run's times as the prediction of the first's, on the same problems).
"""

import math
import os
import random
import tempfile

from . import cv_folds, golden_distance, predictor, ranking_models
from .errors import DatasetError
from .feature_table import feature_matrix
from .tables import read_rows, split_path

BOOTSTRAP = 2000


def per_problem(problems, truth, predicted, minimum: int = 3) -> dict:
    """problem -> {spearman (None when undefined), best_within_5pct (0/1), ape (mean |p - t| / t)}."""
    from scipy.stats import spearmanr

    groups = {}
    for problem, t, p in zip(problems, truth, predicted):
        groups.setdefault(problem, []).append((t, p))
    out = {}
    for problem, values in groups.items():
        figures = {"spearman": None, "best_within_5pct": None, "ape": None}
        ts = [t for t, _ in values]
        if len(values) >= minimum and len(set(ts)) > 1:
            if len({p for _, p in values}) > 1:
                figures["spearman"] = float(spearmanr(ts, [p for _, p in values]).statistic)
        if len(values) >= 2:
            chosen = min(values, key=lambda v: v[1])[0]
            figures["best_within_5pct"] = float(chosen <= min(ts) * 1.05)
        if all(isinstance(p, float) and p > 0 for _, p in values) and not any(math.isnan(p) for _, p in values):
            figures["ape"] = sum(abs(p - t) / t for t, p in values) / len(values)
        out[problem] = figures
    return out


def bootstrap(values: list, seed: int = 0) -> dict:
    """The mean and a percentile 95% interval of the mean, resampling the problems."""
    values = [v for v in values if v is not None and not math.isnan(v)]
    if not values:
        return {"mean": None, "low": None, "high": None, "problems": 0}
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(values) for _ in values) / len(values) for _ in range(BOOTSTRAP))
    return {"mean": sum(values) / len(values), "low": means[int(0.025 * BOOTSTRAP)],
            "high": means[int(0.975 * BOOTSTRAP) - 1], "problems": len(values)}


def summary(problems, truth, predicted, seed: int) -> dict:
    figures = per_problem(problems, truth, predicted)
    return {name: bootstrap([f[name] for f in figures.values()], seed)
            for name in ("spearman", "best_within_5pct", "ape")}


def _timed(rows):
    return [r for r in rows if r.get("y") is not None and r["y"] > 0]


def compare(data: str, retime=None, group: str = "full", seed: int = 0, compiled: bool = False) -> dict:
    train = _timed(read_rows(split_path(data, "train")))
    test_all = read_rows(split_path(data, "test"))
    test = _timed([r for r in test_all if r.get("holdout_group") == group])
    if not test:
        raise DatasetError(split_path(data, "test"), f"field `holdout_group`: no timed `{group}` rows")
    problems = [r["problem_id"] for r in test]
    truth = [r["y"] for r in test]
    with tempfile.TemporaryDirectory() as folder:
        model_path = os.path.join(folder, "model.pkl")
        trained = predictor.train(data, model_path, seed, compiled)
        model = predictor.load(model_path)
    methods = {"keval": [math.exp(v) for v in predictor.predict_log(model, test, problems)]}
    train_problems = predictor.problems_of(train)
    X_train = feature_matrix(train, train_problems, compiled=compiled)[0]
    X_test = feature_matrix(test, problems, compiled=compiled)[0]
    level = predictor.group_means(list(model["regressor"].predict(X_test)), problems)
    log_train = [math.log(r["y"]) for r in train]
    for name in ("regression", "ridge"):
        scores = ranking_models.Ranker(name, seed).fit(X_train, log_train, train_problems).score(X_test)
        methods[name] = [math.exp(min(a + b, 30.0)) for a, b in zip(level, scores)]
    methods["golden_distance"] = [1.0 + d * 1e-6 for d in golden_distance.rule_scores(test)]  # order only
    median = sorted(r["y"] for r in train)[len(train) // 2]
    methods["train_median"] = [median] * len(test)
    result = {"group": group, "train_rows": trained["train_rows"], "timed_train_rows": len(train),
              "test_rows": len(test), "problems": len(set(problems)), "methods": {}}
    for name, predicted in methods.items():
        result["methods"][name] = summary(problems, truth, predicted, seed)
    result["methods"]["golden_distance"]["ape"] = {"mean": None, "low": None, "high": None, "problems": 0}
    if retime:
        second = {}
        for split in ("train", "test"):
            for r in read_rows(split_path(retime, split)):
                if r.get("y"):
                    second[(r.get("keval_problem"), r.get("program_hash"))] = r["y"]
        both = [r for r in test if (r["keval_problem"], r["program_hash"]) in second]
        result["noise_ceiling_rows"] = len(both)
        result["methods"]["noise_ceiling"] = summary(
            [r["problem_id"] for r in both], [r["y"] for r in both],
            [second[(r["keval_problem"], r["program_hash"])] for r in both], seed)
    return result


def cross_validate(data: str, folds: int = 5, seed: int = 0, compiled: bool = False) -> dict:
    """The same comparison on train's own tasks, `folds` ways: each fold's clusters of tasks
    (cv_folds.py) are held out in full and the rest trained on; per method, the fold means and
    their mean. More held-out tasks than one `full` group, so a steadier view of which method
    generalises."""
    from .tables import write_rows

    rows = read_rows(split_path(data, "train"))
    fold = cv_folds.fold_of([r.get("task") or r.get("keval_problem") for r in rows], folds, cv_folds.clusters_of(data))
    per_fold = {}
    with tempfile.TemporaryDirectory() as folder:
        for k in range(folds):
            out = os.path.join(folder, f"fold{k}")
            os.makedirs(out)
            held = [dict(r, problem_id=r["keval_problem"], holdout_group="full") for r, f in zip(rows, fold) if f == k]
            write_rows([r for r, f in zip(rows, fold) if f != k], os.path.join(out, "train.parquet"), "parquet")
            write_rows(held, os.path.join(out, "test.parquet"), "parquet")
            for name, figures in compare(out, None, "full", seed, compiled)["methods"].items():
                per_fold.setdefault(name, []).append(
                    {f: figures[f]["mean"] for f in ("spearman", "best_within_5pct", "ape")})
    result = {}
    for name, values in per_fold.items():
        result[name] = {}
        for figure in ("spearman", "best_within_5pct", "ape"):
            found = [v[figure] for v in values if v[figure] is not None]
            result[name][figure] = {"folds": found, "mean": sum(found) / len(found) if found else None}
    return result
