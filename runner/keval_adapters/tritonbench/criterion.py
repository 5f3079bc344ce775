"""TritonBench's own rule, as its harness applies it (EVAL/eval_{G,T}/0_call_acc.py): the code its
call stage makes of a model's text. Used by judges.py (its exec stage, stdout equality, is there)
and preprocessing.py."""

import ast


def tritonbench_code(predict: str, kind: str) -> str:
    """The model's text as TritonBench's call stage turns it into code."""
    code = predict
    if "```python" in code:
        code = code.split("```python")[-1].replace("<|im_end|>", "").replace("<|EOT|>", "")
    if kind != "G":
        return code
    try:
        tree = ast.parse(code)
        imports = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        functions = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        return "\n".join(imports) + "\n\n" + "\n".join(functions)
    except Exception:  # TritonBench keeps the text as it is when it cannot be processed
        return code
