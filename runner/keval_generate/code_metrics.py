"""Per-submission code metrics: CodeBLEU against the task's golden (the `codebleu` package,
sentence level, weights 0.25 each, as TritonBench uses them) and radon's maintainability index
and cyclomatic complexity on the submission's own code (as KernelBenchX's EVAL/code_quality.py
computes them, but without the test harness KernelBenchX appends to the file it scores).

Input: JSON lines {"index", "code", "golden"}; output: JSON lines {"index", ...metrics}.
A metric that cannot be computed (no golden, code radon cannot parse, a package missing) is null.

The `codebleu` package orders data-flow variables by iterating over sets of strings, so its
score depends on Python's string hashing (0.7053 to 0.7092 on one pair of goldens): the metrics
always run with PYTHONHASHSEED=0, re-executing the process when it was started otherwise."""
import json
import os
import sys
import warnings

HASH_SEED = "0"


def run_with_fixed_hash_seed(argv: list):
    """Re-executes `python -m keval_generate ARGV...` with PYTHONHASHSEED=HASH_SEED, unless this
    process already has it (hashing is fixed when the interpreter starts)."""
    if os.environ.get("PYTHONHASHSEED") == HASH_SEED:
        return
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "keval_generate", *argv])


def load_codebleu():
    try:
        from codebleu import calc_codebleu
        calc_codebleu(["x = 1\n"], ["x = 1\n"], lang="python")
        return calc_codebleu
    except Exception as e:  # noqa: BLE001 - any failure means "not available here"
        print(f"keval: CodeBLEU not available ({type(e).__name__}: {str(e)[:120]}); "
              "codebleu is null (scripts/install-deps.sh installs it)", file=sys.stderr)
        return None


def load_radon():
    try:
        from radon.complexity import cc_visit
        from radon.metrics import mi_visit
        return cc_visit, mi_visit
    except ImportError as e:
        print(f"keval: radon not available ({e}); maintainability and complexity are null", file=sys.stderr)
        return None


PARTS = ("ngram_match_score", "weighted_ngram_match_score", "syntax_match_score", "dataflow_match_score")


def codebleu_parts(calc, references: list, predictions: list) -> dict:
    """The four parts, and CodeBLEU as their mean: the formula of CodeXGLUE's calc_code_bleu.py,
    which TritonBench runs. The `codebleu` package counts a data-flow match of 0 as 1
    (`theta * (dataflow or 1)`), which gives 0.25 to an answer that shares nothing with the golden."""
    import logging
    logging.getLogger().setLevel(logging.ERROR)  # its "no reference data-flows" warning, once per call
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = calc(references, predictions, lang="python")
    parts = {k: float(scores[k]) for k in PARTS}
    return {"codebleu": sum(parts.values()) / len(parts), "codebleu_parts": parts}


def codebleu_of(calc, code: str, golden: str) -> dict:
    if calc is None or not golden.strip() or not code.strip():
        return {"codebleu": None}
    return codebleu_parts(calc, [golden], [code])


def radon_of(tools, code: str) -> dict:
    empty = {"maintainability_index": None, "cyclomatic_complexity": None, "cyclomatic_complexity_max": None}
    if tools is None:
        return empty
    cc_visit, mi_visit = tools
    try:
        blocks = cc_visit(code)
        mi = mi_visit(code, multi=True)
    except Exception:  # noqa: BLE001 - radon raises SyntaxError and others on code it cannot parse
        return empty
    complexities = [b.complexity for b in blocks]
    return {"maintainability_index": mi,
            "cyclomatic_complexity": sum(complexities) / len(complexities) if complexities else 0.0,
            "cyclomatic_complexity_max": max(complexities, default=0)}


def score(code: str, golden: str, calc, tools) -> dict:
    return {**codebleu_of(calc, code, golden), **radon_of(tools, code)}


def metrics(args) -> dict:
    calc, tools = load_codebleu(), load_radon()
    count = 0
    with open(args.input, encoding="utf-8") as source, open(args.output, "w", encoding="utf-8") as out:
        for line in source:
            if not line.strip():
                continue
            item = json.loads(line)
            out.write(json.dumps({"index": item["index"], **score(item["code"], item.get("golden", ""), calc, tools)})
                      + "\n")
            count += 1
    return {"scored": count, "codebleu": calc is not None, "radon": tools is not None}
