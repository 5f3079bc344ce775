"""Code metrics: CodeBLEU as CodeXGLUE (and TritonBench) compute it, radon on the code alone."""
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
