"""`keval predict train|eval`: the baseline code->latency model (docs/dataset.md, "Baseline").

Features (feature_table.py): the program's text, its kernel launches found by running its host
code on fake tensors (and, with `compiled`, its main kernel compiled for sm_90 without a GPU:
registers, spills, shared memory, occupancy), each also against the task's golden and against
the problem's other programs. Models: a regressor of log latency for a problem's level; where the rows name their
problem (`keval_problem`), a LightGBM lambdarank model of the order within each problem and a
regressor of log latency relative to the problem's mean for the spread of its rows' times (its
values, sorted, are dealt out in the ranker's order); and a classifier of failure (y null).
"""

import math
import os
import pickle

from . import ranking_metrics
from .errors import DatasetError
from .feature_table import feature_matrix
from .ranking_models import Ranker
from .tables import read_rows, split_path

MODEL_VERSION = 6  # 3: a within-problem ranker; 4: lambdarank, work features; 5: launches, compiled kernels;
# 6: a model of the H200 (hardware_model.py), lambdarank without the in-problem columns


def order_columns(names: list) -> list:
    """The columns the lambdarank model orders by: all but the in-problem ones (feature_table
    .centred), which grouped cross-validation on train found to cost it (ranking_models.py)."""
    return [j for j, name in enumerate(names) if not name.startswith(ORDER_DROPS)]


ORDER_DROPS = ("in_problem_",)


def problems_of(rows: list, field: str = "keval_problem") -> list:
    """Each row's problem, or the row alone (its index) where it names none."""
    return [r.get(field) or r.get("problem_id") or f"#row{i}" for i, r in enumerate(rows)]


def _rows(path_or_dir: str, split: str) -> tuple:
    path = split_path(path_or_dir, split) if os.path.isdir(path_or_dir) else path_or_dir
    rows = read_rows(path)
    if rows and "x" not in rows[0]:
        raise DatasetError(path, "field `x`: no such column")
    for index, row in enumerate(rows):
        y = row.get("y")
        if y is not None and (isinstance(y, bool) or not isinstance(y, (int, float)) or math.isnan(y)):
            raise DatasetError(path, f"field `y` (row {index}): {y!r} is not a number")
    return path, rows


def _boosted(kind: str, seed: int):
    """LightGBM (a column that is NaN on every row, such as a launch feature of rows that name no
    task, is fine for it; scikit-learn's histogram boosting fails on one)."""
    import lightgbm

    model = lightgbm.LGBMRegressor if kind == "regressor" else lightgbm.LGBMClassifier
    return model(n_estimators=300, learning_rate=0.05, num_leaves=31, min_child_samples=10, random_state=seed,
                 n_jobs=1, verbose=-1)


def train(data: str, model_path: str, seed: int = 0, compiled: bool = False) -> dict:
    path, rows = _rows(data, "train")
    timed = [r for r in rows if r.get("y") is not None and r["y"] > 0]
    if len(timed) < 2:
        raise DatasetError(path, f"field `y`: {len(timed)} timed rows, need at least 2 to train")
    problems = problems_of(timed)
    X, names = feature_matrix(timed, problems, compiled=compiled)
    regressor = _boosted("regressor", seed)
    log_y = [math.log(r["y"]) for r in timed]
    regressor.fit(X, log_y)
    order = spread = None
    if all(r.get("keval_problem") for r in timed):
        order = Ranker("lambdarank", seed).fit(X[:, order_columns(names)], log_y, problems)
        spread = Ranker("regression", seed).fit(X, log_y, problems)
    failed = [r.get("y") is None for r in rows]
    classifier = None
    if len(set(failed)) == 2:
        classifier = _boosted("classifier", seed)
        classifier.fit(feature_matrix(rows, problems_of(rows), compiled=compiled)[0], failed)
    with open(model_path, "wb") as f:
        pickle.dump({"version": MODEL_VERSION, "features": names, "compiled": compiled, "regressor": regressor,
                     "order": order, "spread": spread, "classifier": classifier}, f)
    return {"model": model_path, "train_rows": len(rows), "timed_rows": len(timed),
            "failed_rows": sum(failed), "features": len(names), "ranker": order is not None,
            "lambdarank": order is not None}


def dealt_in_order(values: list, order_scores: list, groups: list) -> list:
    """Within each group, `values` sorted ascending and given out to the rows in ascending order of
    `order_scores` (the fastest-ranked row gets the smallest value)."""
    members = {}
    for i, group in enumerate(groups):
        members.setdefault(group, []).append(i)
    out = list(values)
    for rows in members.values():
        for i, value in zip(sorted(rows, key=lambda i: order_scores[i]), sorted(values[i] for i in rows)):
            out[i] = value
    return out


def group_means(values: list, groups: list) -> list:
    """Per value, the mean of its group's values."""
    sums, counts = {}, {}
    for value, group in zip(values, groups):
        sums[group] = sums.get(group, 0.0) + value
        counts[group] = counts.get(group, 0) + 1
    return [sums[group] / counts[group] for group in groups]


def predict_log(model: dict, rows: list, problems: list) -> list:
    """Log latency per row: the regressor's, or with a ranker, the regressor's mean over the row's
    problem plus the spread regressor's values dealt out in the ranker's order."""
    X = feature_matrix(rows, problems, compiled=model.get("compiled", False))[0]
    absolute = list(model["regressor"].predict(X))
    if model.get("order") is None:
        return absolute
    order = model["order"].score(X[:, order_columns(model["features"])])
    relative = dealt_in_order(model["spread"].score(X), order, problems)
    return [level + rank for level, rank in zip(group_means(absolute, problems), relative)]


def load(model_path: str) -> dict:
    if not os.path.exists(model_path):
        raise DatasetError(model_path, "no such model file (keval predict train writes it)")
    with open(model_path, "rb") as f:
        model = pickle.load(f)
    if not isinstance(model, dict) or model.get("version") != MODEL_VERSION:
        raise DatasetError(model_path, "field `version`: not a keval predict model of this version")
    return model


def evaluate(data: str, model_path: str, group: str = "full") -> dict:
    model = load(model_path)
    path, rows = _rows(data, "test")
    if rows and "problem_id" not in rows[0]:
        raise DatasetError(path, "field `problem_id`: no such column (a test split has it)")
    held = [r for r in rows if r.get("holdout_group") == group]
    if not held:
        raise DatasetError(path, f"field `holdout_group`: no `{group}` rows to evaluate on")
    timed = [r for r in held if r.get("y") is not None and r["y"] > 0]
    result = {"group": group, "rows": len(held), "timed_rows": len(timed),
              "problems": len({r["problem_id"] for r in held})}
    if timed:
        problems = [r["problem_id"] for r in timed]
        predicted = [math.exp(v) for v in predict_log(model, timed, problems)]
        truth = [r["y"] for r in timed]
        result.update(ranking_metrics.within_problem_rank_correlations(problems, truth, predicted))
        best = ranking_metrics.best_within(problems, truth, predicted)
        result["best_within_5pct"], result["best_problems"] = best["share"], best["problems"]
        result["mape"] = ranking_metrics.mape(truth, predicted)
    if model["classifier"] is not None:
        X = feature_matrix(held, problems_of(held, "problem_id"), compiled=model.get("compiled", False))[0]
        scores = model["classifier"].predict_proba(X)[:, 1]
        result["fail_auroc"] = ranking_metrics.auroc([r.get("y") is None for r in held], scores)
    else:
        result["fail_auroc"] = None
    return result
