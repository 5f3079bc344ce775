"""`keval predict train|eval`: the baseline code->latency model (docs/dataset.md, "Baseline").

Gradient-boosted tree models on the static features (features.py, work_features.py,
golden_distance.py): a regressor of log latency fitted on the rows that have one; where the rows
name their problem (`keval_problem`), a regressor of log latency relative to its problem's mean
and a LightGBM lambdarank model of the order within each problem (the variants of one problem
differ in little but their tuning constants, which the absolute model learns less of than the
problems' sizes); and a classifier of failure (y null) on all. A problem's level comes from the
regressor, the order within it from the lambdarank model, the spread of its rows' times from
the relative regressor (its values, sorted, are dealt out in the ranker's order).
"""

import importlib.util
import math
import os
import pickle

from . import ranking_metrics
from .errors import DatasetError
from .features import matrix
from .tables import read_rows, split_path

MODEL_VERSION = 4  # 2: in-order tuning constants; 3: a within-problem ranker; 4: lambdarank, work features


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


def train(data: str, model_path: str, seed: int = 0) -> dict:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    path, rows = _rows(data, "train")
    timed = [r for r in rows if r.get("y") is not None and r["y"] > 0]
    if len(timed) < 2:
        raise DatasetError(path, f"field `y`: {len(timed)} timed rows, need at least 2 to train")
    X, names = matrix(timed)
    regressor = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=seed)
    log_y = [math.log(r["y"]) for r in timed]
    regressor.fit(X, log_y)
    ranker = order = None
    if all(r.get("keval_problem") for r in timed):
        ranker = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=seed)
        ranker.fit(X, relative_to_group(log_y, [r["keval_problem"] for r in timed]))
        if importlib.util.find_spec("lightgbm"):  # else (an offline machine) the relative regressor orders
            order = fit_lambdarank(X, log_y, [r["keval_problem"] for r in timed], seed)
    failed = [r.get("y") is None for r in rows]
    classifier = None
    if len(set(failed)) == 2:
        classifier = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=seed)
        classifier.fit(matrix(rows)[0], failed)
    with open(model_path, "wb") as f:
        pickle.dump({"version": MODEL_VERSION, "features": names, "regressor": regressor,
                     "ranker": ranker, "order": order, "classifier": classifier}, f)
    return {"model": model_path, "train_rows": len(rows), "timed_rows": len(timed),
            "failed_rows": sum(failed), "features": len(names), "ranker": ranker is not None,
            "lambdarank": order is not None}


GRADES = 10  # lambdarank's relevance: a row's place in its problem, in tenths (fastest: 9)


def fit_lambdarank(X, log_y: list, problems: list, seed: int):
    """LightGBM lambdarank over problems as queries; its parameters were chosen by 5-fold
    cross-validation over train's tasks (docs/dataset.md, "Baseline predictor")."""
    import lightgbm
    import numpy as np

    index = sorted(range(len(problems)), key=lambda i: problems[i])
    grades, sizes, start = [0] * len(index), [], 0
    while start < len(index):
        end = start
        while end < len(index) and problems[index[end]] == problems[index[start]]:
            end += 1
        members = sorted(index[start:end], key=lambda i: -log_y[i])  # slowest first: grade 0
        for place, i in enumerate(members):
            grades[i] = int(GRADES * place / len(members))
        sizes.append(end - start)
        start = end
    model = lightgbm.LGBMRanker(objective="lambdarank", n_estimators=300, learning_rate=0.03, num_leaves=15,
                                min_child_samples=20, label_gain=list(range(GRADES + 1)),
                                lambdarank_truncation_level=40, colsample_bytree=0.8, subsample=0.8,
                                subsample_freq=1, random_state=seed, verbose=-1)
    model.fit(np.asarray(X)[index], [grades[i] for i in index], group=sizes)
    return model


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


def relative_to_group(values: list, groups: list) -> list:
    """Each value less the mean of its group's."""
    return [value - mean for value, mean in zip(values, group_means(values, groups))]


def predict_log(model: dict, rows: list, problems: list) -> list:
    """Log latency per row: the regressor's, or with a ranker, the regressor's mean over the row's
    problem plus the ranker's place of the row within it."""
    X = matrix(rows)[0]
    absolute = list(model["regressor"].predict(X))
    if model.get("ranker") is None:
        return absolute
    relative = list(model["ranker"].predict(X))
    if model.get("order") is not None:
        relative = dealt_in_order(relative, list(-model["order"].predict(X)), problems)
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
        scores = model["classifier"].predict_proba(matrix(held)[0])[:, 1]
        result["fail_auroc"] = ranking_metrics.auroc([r.get("y") is None for r in held], scores)
    else:
        result["fail_auroc"] = None
    return result
