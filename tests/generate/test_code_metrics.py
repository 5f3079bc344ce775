"""Code metrics: CodeBLEU as CodeXGLUE (and TritonBench) compute it, radon on the code alone."""
import json
import os
import subprocess
import sys

from conftest import REPO, SUITE
from keval_generate.code_metrics import load_codebleu, load_radon, score

GOLDEN = "import triton\n\n\ndef relu(x):\n    y = x.clone()\n    return y\n"


def test_the_golden_itself_scores_one_and_prose_scores_zero():
    calc, tools = load_codebleu(), load_radon()
    assert abs(score(GOLDEN, GOLDEN, calc, tools)["codebleu"] - 1.0) < 1e-9
    # The codebleu package alone would give 0.25: it counts a data-flow match of 0 as 1.
    prose = score("I cannot write this kernel.", GOLDEN, calc, tools)
    assert prose["codebleu"] == 0.0 and prose["maintainability_index"] is None


def test_radon_figures_of_parsable_code_and_none_without_a_golden():
    metrics = score(GOLDEN, "", load_codebleu(), load_radon())
    assert metrics["codebleu"] is None
    assert 0 < metrics["maintainability_index"] <= 100 and metrics["cyclomatic_complexity"] == 1.0


def test_codebleu_is_the_same_whatever_the_callers_hash_seed(tmp_path):
    # cumsum against cumprod's golden: the codebleu package alone gives 0.7053 to 0.7092 by seed.
    pair = {"index": 0, "code": (SUITE / "cumsum" / "golden.py").read_text(),
            "golden": (SUITE / "cumprod" / "golden.py").read_text()}
    (tmp_path / "pairs.jsonl").write_text(json.dumps(pair) + "\n")
    scores = []
    for seed in ("1", "3", "random"):
        out = tmp_path / f"metrics-{seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO / "runner")}
        subprocess.run([sys.executable, "-m", "keval_generate", "metrics", "--input", str(tmp_path / "pairs.jsonl"),
                        "--output", str(out)], env=env, check=True, capture_output=True, timeout=300)
        scores.append(json.loads(out.read_text())["codebleu_parts"])
    assert scores[0] == scores[1] == scores[2]
