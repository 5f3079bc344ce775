"""`keval predict train|eval`: the baseline code->latency model (docs/dataset.md, "Baseline").

Two scikit-learn gradient-boosted tree models on the static features (features.py): a regressor
of log latency fitted on the rows that have one, and a classifier of failure (y null) on all.
Evaluation is on the test split's `full` problems, which training never saw.
"""

import math
import os
import pickle

from . import ranking_metrics
from .errors import DatasetError
from .features import matrix
from .tables import read_rows, split_path

MODEL_VERSION = 2  # 2: the in-order tuning constants (features.py)


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
    regressor.fit(X, [math.log(r["y"]) for r in timed])
    failed = [r.get("y") is None for r in rows]
    classifier = None
    if len(set(failed)) == 2:
        classifier = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=seed)
        classifier.fit(matrix(rows)[0], failed)
    with open(model_path, "wb") as f:
        pickle.dump({"version": MODEL_VERSION, "features": names, "regressor": regressor,
                     "classifier": classifier}, f)
    return {"model": model_path, "train_rows": len(rows), "timed_rows": len(timed),
            "failed_rows": sum(failed), "features": len(names)}


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
        predicted = [math.exp(v) for v in model["regressor"].predict(matrix(timed)[0])]
        truth = [r["y"] for r in timed]
        problems = [r["problem_id"] for r in timed]
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
