"""Choosing the ranking models' settings by grouped cross-validation on the train split alone
(cv_folds.py: whole clusters of near-copy tasks per fold), and which feature families earn
their place. bench/predictor_cv.py prints it; ranking_models.PARAMETERS holds the choice.
"""

import math

from . import cv_folds
from .comparison import per_problem
from .feature_table import feature_matrix
from .predictor import order_columns, problems_of
from .ranking_models import Ranker
from .tables import read_rows, split_path

GRID = {
    "lambdarank": [{"num_leaves": leaves, "n_estimators": trees} for leaves in (7, 15, 31) for trees in (150, 300, 600)],
    "regression": [{"num_leaves": leaves, "n_estimators": trees} for leaves in (7, 15, 31) for trees in (150, 300, 600)],
    "ridge": [{"alpha": alpha} for alpha in (1.0, 10.0, 100.0, 1000.0)],
}
HARDWARE = ("hw_", "rank_hw_", "vs_golden_hw_")  # hardware_model.py's, and their rank in the problem
FAMILIES = {  # feature columns by where they come from, each family adding to those above
    "text": lambda name: not name.startswith(("launch_", "compiled_", "vs_golden_", "in_problem_") + HARDWARE),
    "+launch": lambda name: not name.startswith(("compiled_", "vs_golden_compiled_", "in_problem_") + HARDWARE),
    "+compiled": lambda name: not name.startswith(("in_problem_",) + HARDWARE),
    "+hardware": lambda name: not name.startswith("in_problem_"),
    "+in_problem": lambda name: True,
}


def fold_figures(problems: list, truth: list, scores: list) -> dict:
    figures = per_problem(problems, truth, scores)
    mean = lambda values: sum(values) / len(values) if values else None  # noqa: E731
    return {name: mean([f[name] for f in figures.values() if f[name] is not None])
            for name in ("spearman", "best_within_5pct")}


class Folds:
    """The train split's timed rows, their features (once) and their folds."""

    def __init__(self, data: str, folds: int = 5, compiled: bool = False):
        rows = [r for r in read_rows(split_path(data, "train")) if r.get("y") is not None and r["y"] > 0]
        self.rows, self.problems = rows, problems_of(rows)
        self.log_y = [math.log(r["y"]) for r in rows]
        self.X, self.names = feature_matrix(rows, self.problems, compiled=compiled)
        self.compiled = compiled
        self.fold = cv_folds.fold_of([r.get("task") or r.get("keval_problem") for r in rows], folds, cv_folds.clusters_of(data))
        self.folds = folds

    def evaluate(self, method: str, parameters: dict, columns=None, seed: int = 0) -> dict:
        columns = list(range(len(self.names))) if columns is None else columns
        per_fold = []
        for k in range(self.folds):
            train = [i for i, f in enumerate(self.fold) if f != k]
            test = [i for i, f in enumerate(self.fold) if f == k]
            if not train or not test:
                continue
            ranker = Ranker(method, seed, **parameters).fit(
                self.X[train][:, columns], [self.log_y[i] for i in train], [self.problems[i] for i in train])
            scores = ranker.score(self.X[test][:, columns])
            per_fold.append(fold_figures([self.problems[i] for i in test], [self.rows[i]["y"] for i in test], scores))
        out = {"parameters": parameters, "folds": [f["spearman"] for f in per_fold]}
        for name in ("spearman", "best_within_5pct"):
            values = [f[name] for f in per_fold if f[name] is not None]
            out[name] = sum(values) / len(values) if values else None
        return out

    def columns(self, family: str) -> list:
        return [j for j, name in enumerate(self.names) if FAMILIES[family](name)]


def select(data: str, folds: int = 5, seed: int = 0, grid=None, compiled: bool = False) -> dict:
    """Per method, every setting's cross-validated figures and the one with the best Spearman;
    then, with the chosen lambdarank setting, each feature family added in turn (lambdarank's
    grid on predictor.order_columns, as the predictor fits it)."""
    table = Folds(data, folds, compiled)
    result = {"rows": len(table.rows), "problems": len(set(table.problems)), "features": len(table.names),
              "methods": {}, "families": {}}
    for method, settings in (grid or GRID).items():
        columns = order_columns(table.names) if method == "lambdarank" else None  # as predictor.train fits it
        tried = [table.evaluate(method, parameters, columns, seed) for parameters in settings]
        best = max(tried, key=lambda t: t["spearman"] if t["spearman"] is not None else -2)
        result["methods"][method] = {"tried": tried, "chosen": best}
    chosen = result["methods"].get("lambdarank", {}).get("chosen", {}).get("parameters", {})
    for family in FAMILIES:
        if family != "+compiled" or compiled:
            result["families"][family] = table.evaluate("lambdarank", chosen, table.columns(family), seed)
    return result
