"""makora's `x` for a dataset record: one self-contained program per row (docs/dataset.md, "x").

Every exported `x` is a problem part, the line DELIMITER, then the submitted code unchanged to
the end, so `x.split(DELIMITER + "\\n", 1)[1]` gives the code back. The problem part is:

- keval's own tasks: the task's reference.py, `Model` calling its `reference`, `ModelNew`
  calling the submission's entry, `get_inputs()` drawing the timed case's inputs with the task's
  `make_inputs` and a fixed seed, and `get_init_inputs()` (empty);
- KernelBench-format tasks: the problem file (Model, get_inputs, get_init_inputs), the code
  defining ModelNew; empty when the submission defines Model itself;
- anything else (peer suites of other formats, a task edited since it was judged, a record
  without its case's shapes): a comment naming the problem, and `x` does not run on its own.
"""

import ast
import json

DELIMITER = "# ===== keval: the submitted code, unchanged, from here to the end ====="
FALLBACK_ENTRY = "kernel_function"  # as keval_runner.loading.find_entry
SEED = 0  # get_inputs() draws one fixed input set; keval's timed runs drew fresh seeds


def candidate_code(x: str) -> str:
    """The submitted code of an exported `x` (x itself when it has no delimiter: makora's rows)."""
    head, sep, tail = x.partition(DELIMITER + "\n")
    return tail if sep else x


def header(problem: str, shapes, dtype) -> str:
    shapes_text = json.dumps(shapes, sort_keys=True) if shapes is not None else "null"
    return f"# keval problem: {problem}; shapes {shapes_text}; dtype {dtype}\n"


def code_only(problem: str, shapes, dtype, code: str) -> str:
    return header(problem, shapes, dtype) + DELIMITER + "\n" + code


def kernelbench(program_x: str, code: str) -> str:
    """The stored makora form (problem file + code, or the code alone) with the delimiter."""
    if program_x.endswith(code):
        problem = program_x[: len(program_x) - len(code)]
        return problem + DELIMITER + "\n" + code
    return DELIMITER + "\n" + program_x


def defined_entry(code: str, entry: str) -> str:
    """The name ModelNew calls: the entry when the code defines it at top level, else
    kernel_function when it defines that, else the entry (the row failed as keval judged it)."""
    try:
        module = ast.parse(code)
    except (SyntaxError, ValueError):
        return entry
    names = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    if entry in names or FALLBACK_ENTRY not in names:
        return entry
    return FALLBACK_ENTRY


KEVAL_TASK_TEMPLATE = '''{header}# makora's shape: Model is keval's reference for `{task}` (suites/{suite}/{task}/reference.py,
# task version {version}), ModelNew calls the submitted `{entry}` (the code after the keval
# line that ends this part), get_inputs() draws the case's inputs. y is ModelNew's time on them.
import torch
import torch.nn as nn

# ----- reference.py -----
{reference}
# ----- end of reference.py -----

# Bound now, so that a name the submission redefines does not change Model or get_inputs.
_keval_reference, _keval_make_inputs = reference, make_inputs
KEVAL_CASE = {case}
KEVAL_DTYPE = torch.{dtype}
KEVAL_SEED = {seed}


class Model(nn.Module):
    """keval's reference: plain PyTorch."""

    def forward(self, *args):
        return _keval_reference(*args)


class ModelNew(nn.Module):
    """The submitted code's `{call}` (defined below this class, looked up when called)."""

    def forward(self, *args):
        return {call}(*args)


def get_inputs():
    # keval's make_inputs draws on the default device: the GPU when there is one
    with torch.device("cuda" if torch.cuda.is_available() else "cpu"):
        return list(_keval_make_inputs(dict(KEVAL_CASE), KEVAL_DTYPE, KEVAL_SEED))


def get_init_inputs():
    return []


'''


def keval_task(task, record: dict, problem: str) -> str:
    """The program of a keval-format task's record: reference, Model, ModelNew, inputs, code."""
    case = dict(record.get("shapes") or {})
    case["name"] = record["case"]
    text = KEVAL_TASK_TEMPLATE.format(
        header=header(problem, record.get("shapes"), record.get("dtype")), task=task.name,
        suite=record.get("suite"), version=task.version, entry=task.entry,
        reference=task.reference.rstrip("\n"), case=repr(dict(sorted(case.items()))),
        dtype=record["dtype"], seed=SEED, call=defined_entry(record["program"], task.entry))
    return text + DELIMITER + "\n" + record["program"]
