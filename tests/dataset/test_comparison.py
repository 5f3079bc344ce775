"""bench/latency_baseline.py's comparison: every method on one split, each figure with a
bootstrap interval over problems, and the noise ceiling from a second timing."""
import subprocess
import sys

from conftest import REPO
from keval_dataset.comparison import bootstrap, compare, per_problem
from test_predictor import write_export


def test_every_method_is_reported_with_an_interval_that_holds_its_mean(tmp_path):
    write_export(tmp_path / "a", seed=1, noise=0.01)
    write_export(tmp_path / "b", seed=2, noise=0.01)
    result = compare(str(tmp_path / "a"), str(tmp_path / "b"))
    methods = result["methods"]
    assert set(methods) == {"keval", "regression", "ridge", "golden_distance", "train_median", "noise_ceiling"}
    assert result["problems"] == 4
    keval = methods["keval"]["spearman"]
    assert keval["low"] <= keval["mean"] <= keval["high"] and keval["mean"] > 0.6  # the law is learnable
    assert methods["noise_ceiling"]["spearman"]["mean"] > 0.9
    assert methods["train_median"]["spearman"]["mean"] is None  # a constant has no order
    assert methods["golden_distance"]["ape"]["mean"] is None  # a rule has no level
    assert methods["train_median"]["ape"]["mean"] is not None


def test_per_problem_figures_and_bootstrap_of_a_constant():
    figures = per_problem(["p"] * 4 + ["q"] * 2, [1.0, 2.0, 3.0, 4.0, 1.0, 1.2], [1.0, 2.0, 3.0, 4.0, 2.0, 1.0])
    assert figures["p"] == {"spearman": 1.0, "best_within_5pct": 1.0, "ape": 0.0}
    assert figures["q"]["spearman"] is None and figures["q"]["best_within_5pct"] == 0.0  # fewer than 3
    assert bootstrap([0.5, 0.5, 0.5]) == {"mean": 0.5, "low": 0.5, "high": 0.5, "problems": 3}


def test_the_bench_prints_one_line_per_method(tmp_path):
    write_export(tmp_path / "a", seed=1)
    proc = subprocess.run([sys.executable, str(REPO / "bench/latency_baseline.py"), "--data", tmp_path / "a"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for method in ("keval", "regression", "ridge", "golden_distance", "train_median"):
        assert any(line.startswith(method) for line in lines)
