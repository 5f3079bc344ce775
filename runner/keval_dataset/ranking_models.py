"""The models that order a problem's programs, each fitted on (X, log latency, problem) and
giving a score per row where smaller means faster:

- `lambdarank`: LightGBM's lambdarank over problems as queries, relevance the row's place in its
  problem in tenths (fastest 9);
- `regression`: LightGBM regression of log latency less its problem's mean;
- `ridge`: standardised ridge regression of the same target (NaN features: the train median).

PARAMETERS are the values grouped cross-validation over train's task clusters chose (cv_folds.py,
bench/predictor_cv.py; bench/runs/2026-12-05-predictor-4.md); the test split had no part in it.
The lambdarank model is given every column but the in-problem ones (predictor.order_columns).
"""

GRADES = 10
PARAMETERS = {  # bench/runs/2026-12-05-predictor-4.md: the grid's best mean Spearman over the folds
    "lambdarank": {"n_estimators": 600, "num_leaves": 31, "min_child_samples": 20, "learning_rate": 0.03},
    "regression": {"n_estimators": 300, "num_leaves": 15, "min_child_samples": 20, "learning_rate": 0.03},
    "ridge": {"alpha": 1000.0},
}


def members(problems: list) -> dict:
    groups = {}
    for i, problem in enumerate(problems):
        groups.setdefault(problem, []).append(i)
    return groups


def grades(log_y: list, problems: list) -> list:
    """Each row's place in its problem in tenths: 0 for the slowest tenth, GRADES - 1 the fastest."""
    out = [0] * len(log_y)
    for rows in members(problems).values():
        for place, i in enumerate(sorted(rows, key=lambda i: -log_y[i])):
            out[i] = int(GRADES * place / len(rows))
    return out


def relative_to_group(values: list, groups: list) -> list:
    """Each value less the mean of its group's."""
    out = list(values)
    for rows in members(groups).values():
        mean = sum(values[i] for i in rows) / len(rows)
        for i in rows:
            out[i] = values[i] - mean
    return out


def _boosting(seed: int, **overrides) -> dict:
    return dict(colsample_bytree=0.8, subsample=0.8, subsample_freq=1, random_state=seed, n_jobs=1, verbose=-1,
                **overrides)


class Ranker:
    """One of the methods above, fitted; score(X) is smaller for faster rows."""

    def __init__(self, method: str, seed: int = 0, **parameters):
        if method not in PARAMETERS:
            raise ValueError(f"no ranking method {method!r} (one of {', '.join(PARAMETERS)})")
        self.method, self.seed = method, seed
        self.parameters = dict(PARAMETERS[method], **parameters)
        self.model = None

    def fit(self, X, log_y: list, problems: list) -> "Ranker":
        import numpy as np

        X = np.asarray(X, dtype=float)
        if self.method == "lambdarank":
            import lightgbm

            order = sorted(range(len(problems)), key=lambda i: problems[i])
            sizes = [len(rows) for _, rows in sorted(members(problems).items())]
            labels = grades(log_y, problems)
            self.model = lightgbm.LGBMRanker(objective="lambdarank", label_gain=list(range(GRADES + 1)),
                                             lambdarank_truncation_level=40, **_boosting(self.seed, **self.parameters))
            self.model.fit(X[order], [labels[i] for i in order], group=sizes)
        elif self.method == "regression":
            import lightgbm

            self.model = lightgbm.LGBMRegressor(**_boosting(self.seed, **self.parameters))
            self.model.fit(X, relative_to_group(list(log_y), problems))
        else:
            from sklearn.impute import SimpleImputer
            from sklearn.linear_model import Ridge
            from sklearn.pipeline import make_pipeline
            from sklearn.preprocessing import StandardScaler

            self.model = make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler(),
                                       Ridge(alpha=self.parameters["alpha"]))
            self.model.fit(X, relative_to_group(list(log_y), problems))
        return self

    def score(self, X) -> list:
        import numpy as np

        values = self.model.predict(np.asarray(X, dtype=float))
        return [float(-v) for v in values] if self.method == "lambdarank" else [float(v) for v in values]
