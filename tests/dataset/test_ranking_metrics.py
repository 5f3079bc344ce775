"""The evaluation's figures computed right on hand-worked examples: within-problem Spearman,
best-within-5%, and the folds that keep near-copy tasks together."""
import pytest

from keval_dataset.comparison import per_problem
from keval_dataset.cv_folds import fold_of
from keval_dataset.model_selection import fold_figures
from keval_dataset.ranking_metrics import best_within, within_problem_rank_correlations
from keval_dataset.ranking_models import Ranker, grades


def test_spearman_per_problem_matches_the_textbook_formula():
    # d = (1, -1, 1, -1, 0): rho = 1 - 6 * 4 / (5 * 24) = 0.8
    figures = per_problem(["p"] * 5, [1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 1.0, 4.0, 3.0, 5.0])
    assert figures["p"]["spearman"] == pytest.approx(0.8)
    reversed_ = per_problem(["p"] * 4, [1.0, 2.0, 3.0, 4.0], [9.0, 7.0, 5.0, 1.0])
    assert reversed_["p"]["spearman"] == pytest.approx(-1.0)


def test_the_mean_is_over_problems_not_rows_and_skips_constant_truth():
    problems = ["a"] * 3 + ["b"] * 6 + ["c"] * 3
    truth = [1, 2, 3] + [1, 2, 3, 4, 5, 6] + [2, 2, 2]
    predicted = [1, 2, 3] + [6, 5, 4, 3, 2, 1] + [1, 2, 3]
    result = within_problem_rank_correlations(problems, truth, predicted)
    assert result["problems"] == 2 and result["spearman"] == pytest.approx(0.0)  # (1 + -1) / 2
    assert fold_figures(problems, truth, predicted)["spearman"] == pytest.approx(0.0)


def test_best_within_five_percent_reads_milliseconds_not_ranks():
    # a's pick (predicted fastest) is 1.04 ms against a best of 1.0: a hit; b's 1.2 against 1.0: a miss
    problems = ["a", "a", "a", "b", "b"]
    truth = [1.0, 1.04, 3.0, 1.0, 1.2]
    predicted = [0.5, 0.1, 0.9, 0.5, 0.1]
    assert best_within(problems, truth, predicted)["share"] == pytest.approx(0.5)
    figures = per_problem(problems, truth, predicted)
    assert figures["a"]["best_within_5pct"] == 1.0 and figures["b"]["best_within_5pct"] == 0.0


def test_a_cluster_of_near_copies_falls_in_one_fold():
    tasks = ["matmul", "bmm", "relu", "matmul_gelu", "softmax"] * 3
    folds = fold_of(tasks, 5, [["bmm", "matmul", "matmul_gelu"]])
    assert len({f for t, f in zip(tasks, folds) if t in ("matmul", "bmm", "matmul_gelu")}) == 1
    assert all(0 <= f < 5 for f in folds)


def test_grades_are_places_in_tenths_fastest_highest():
    assert grades([3.0, 1.0, 2.0, 0.0], ["p"] * 4) == [0, 5, 2, 7]
    assert grades([5.0, 1.0, 3.0], ["p"] * 3) == [0, 6, 3]
    assert grades([1.0, 2.0], ["p", "q"]) == [0, 0]


@pytest.mark.parametrize("method", ["lambdarank", "regression", "ridge"])
def test_each_ranking_method_learns_a_law_of_one_feature(method):
    import random

    rng = random.Random(0)
    X, log_y, problems = [], [], []
    for p in range(30):
        for _ in range(8):
            a, b = rng.uniform(0, 4), rng.uniform(0, 4)
            X.append([a, b])
            log_y.append(p * 0.1 + abs(a - 2))  # fastest at a = 2; b is noise
            problems.append(f"p{p}")
    if method == "ridge":  # a linear model sees |a - 2| only as a feature of its own
        X = [[a, b, abs(a - 2)] for a, b in X]
    ranker = Ranker(method, **({} if method == "ridge" else {"min_child_samples": 5}))
    scores = ranker.fit(X[:160], log_y[:160], problems[:160]).score(X[160:])
    figures = fold_figures(problems[160:], [2.0 ** v for v in log_y[160:]], scores)
    assert figures["spearman"] > 0.8
