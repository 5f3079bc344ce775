"""keval's code metrics beside the peers' own on the peers' published outputs
(docs/generate.md, "Against the peers' figures").

TritonBench: for each LLM_generated file, keval's CodeBLEU (`keval code-metrics`: per
submission, real newlines, against the adapted task's golden.py, averaged) beside TritonBench's
own procedure reproduced (EVAL/evaluate_similarity.py: ```python blocks joined, every code
written on one line with its newlines escaped as the two characters \\n, one corpus-level
CodeBLEU against the `label` field), as shipped (its syntax and data-flow matches strip
comments with the language set to 'java', which cuts Python lines at `//`) and with the comment
language fixed, and the two steps between them.
KernelBenchX: its kbx_corpus records carry the maintainability index KernelBenchX computed on
each generated file (code + the test harness it appends after a line of 146 '#'); radon on the
whole file beside radon on the code alone (keval's figure).

    python bench/peer_code_metrics.py --tritonbench CHECKOUT [--kernelbenchx CHECKOUT] [--keval build/keval]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runner"))
from keval_generate.code_metrics import codebleu_parts  # noqa: E402

SEPARATOR = "#" * 146
TB_FILES = {
    "G": ["Bench_G_general_purpose/output_gpt-4o_simp.jsonl", "Bench_G_general_purpose/output_gpt-4o_comp.jsonl",
          "Bench_G_general_purpose/output_claude-3-5-sonnet-20240620_simp.jsonl",
          "Bench_G_general_purpose/output_claude-3-5-sonnet-20240620_comp.jsonl",
          "Bench_G_general_purpose/Qwen2.5-72B-Instruct_simp.jsonl", "Bench_G_general_purpose/Qwen2.5-72B-Instruct_comp.jsonl",
          "Bench_G_general_purpose/output_DeepSeek-R1_comp.jsonl", "Bench_G_general_purpose/output_o1-2024-12-17_comp.jsonl"],
    "T": ["Bench_T_general_purpose/output_gpt-4o.jsonl", "Bench_T_general_purpose/output_claude-3-5-sonnet-20240620.jsonl",
          "Bench_T_general_purpose/output_Qwen2.5-72B-Instruct.jsonl", "Bench_T_general_purpose/output_DeepSeek-R1.jsonl",
          "Bench_T_general_purpose/output_o1-2024-12-17.jsonl"],
}


def tritonbench_select_code(text: str) -> str:
    code = "\n\n".join(re.findall(r"```python\n(.*?)```", text, re.DOTALL))
    return code if code else text


def escaped(code: str) -> str:
    return code.replace("\r", "").replace("\n", "\\n").strip()


def codebleu(refs: list, preds: list, comments_as: str = "python") -> float:
    """CodeXGLUE's total; `comments_as`: the language whose comment syntax the syntax and
    data-flow matches strip (TritonBench's CodeBLEU scripts pass 'java' there)."""
    from codebleu import calc_codebleu, dataflow_match, syntax_match
    from codebleu.parser import remove_comments_and_docstrings
    for module in (syntax_match, dataflow_match):
        module.remove_comments_and_docstrings = lambda source, lang: remove_comments_and_docstrings(source, comments_as)
    try:
        return codebleu_parts(calc_codebleu, [[r] for r in refs], preds)["codebleu"]
    finally:
        for module in (syntax_match, dataflow_match):
            module.remove_comments_and_docstrings = remove_comments_and_docstrings


def keval_codebleu(keval: str, kind: str, checkout: str, path: str) -> tuple:
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as out:
        proc = subprocess.run([keval, "code-metrics", "--suite", f"tritonbench-{kind.lower()}:{checkout}",
                               "--submissions", f"tritonbench-{kind.lower()}:{path}", "--out", out.name],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"keval code-metrics failed on {path}: {proc.stderr.strip()[-300:]}")
        rows = [json.loads(line) for line in open(out.name)]
    scores = [r["code_metrics"]["codebleu"] for r in rows if r["code_metrics"] and r["code_metrics"].get("codebleu") is not None]
    return (statistics.mean(scores) if scores else None), len(scores), len(rows)


def tritonbench_rows(keval: str, checkout: str) -> list:
    out = []
    for kind, files in TB_FILES.items():
        for rel in files:
            path = os.path.join(checkout, "LLM_generated", rel)
            items = [json.loads(line) for line in open(path, encoding="utf-8")]
            labels = [i["label"] for i in items]
            preds = [tritonbench_select_code(i["predict"]) for i in items]
            theirs = codebleu([escaped(l) for l in labels], [escaped(p) for p in preds], comments_as="java")
            fixed = codebleu([escaped(l) for l in labels], [escaped(p) for p in preds])
            corpus_newlines = codebleu(labels, preds)
            per_sample_label = statistics.mean(codebleu([l], [p]) for l, p in zip(labels, preds))
            ours, scored, n = keval_codebleu(keval, kind, checkout, path)
            out.append({"suite": f"TritonBench-{kind}", "file": os.path.basename(rel), "n": len(items),
                        "tritonbench_as_shipped": theirs, "tritonbench_comments_fixed": fixed,
                        "corpus_real_newlines": corpus_newlines,
                        "per_sample_vs_label": per_sample_label, "keval": ours, "keval_scored": scored})
            print(json.dumps(out[-1]), file=sys.stderr, flush=True)
    return out


def kernelbenchx_rows(checkout: str) -> dict:
    from radon.metrics import mi_visit
    path = os.path.join(checkout, "data", "kbx_corpus", "all_records.jsonl")
    published, whole, alone, rows = [], [], [], 0
    for line in open(path, encoding="utf-8"):
        record = json.loads(line)
        code, mi = record.get("after_code"), record.get("after", {}).get("maintainability")
        if not code or not isinstance(mi, (int, float)):
            continue
        try:
            w, a = mi_visit(code, multi=True), mi_visit(code.split(SEPARATOR)[0], multi=True)
        except Exception:  # noqa: BLE001 - a record radon cannot parse is left out of all three
            continue
        rows += 1
        published.append(mi)
        whole.append(w)
        alone.append(a)
    return {"records": rows, "kernelbenchx_published": statistics.mean(published),
            "radon_whole_file": statistics.mean(whole), "keval_code_alone": statistics.mean(alone),
            "whole_equals_published": sum(abs(w - p) < 0.01 for w, p in zip(whole, published)),
            "alone_minus_whole_median": statistics.median(a - w for a, w in zip(alone, whole))}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tritonbench", required=True)
    p.add_argument("--kernelbenchx", help="its checkout (left out: TritonBench alone)")
    p.add_argument("--keval", default="build/keval")
    args = p.parse_args()
    print(json.dumps({"kernelbenchx": kernelbenchx_rows(args.kernelbenchx) if args.kernelbenchx else None,
                      "tritonbench": tritonbench_rows(args.keval, args.tritonbench)}, indent=1))


if __name__ == "__main__":
    main()
