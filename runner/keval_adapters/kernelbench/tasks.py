"""KernelBench problems as native keval task folders (`suite`): task.toml, the problem file,
the runtime, reference.py, golden.py and the submission glue."""

import os
import re
import sys
import warnings

from ..common.errors import AdapterError
from ..common.runtime_copy import loader_snippet, runtime_text
from ..common.suite_writer import SuiteWriter, adapter_sources, file_digest
from ..common.task_toml import task_toml
from .problems import ProblemFile, list_problems, problems_root
from .sizing import fits_cpu, plan

PEER = "kernelbench"  # this package: the tasks' `adapter`, whose code their evaluation keys follow
ADAPTER_VERSION = 1  # the generated tasks' `version`: bump when their meaning changes
ENTRY = "kernelbench_forward"
STAMP = ".kernelbench-stamp"
RUNTIME_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime.py")

TOLERANCE = (1e-2, 1e-2, "KernelBench's published check: torch.allclose(atol=1e-2, rtol=1e-2) in float32 "
             "(v0/v0.1; its current eval.py defaults to 1e-4 for fp32)")


def instruction(problem: ProblemFile, source: str) -> str:
    return f"""Rewrite the PyTorch model below (KernelBench level {problem.level}, problem {problem.pid}: {problem.title}) to run faster, with Triton.

Write a Python module that defines `class ModelNew(torch.nn.Module)`: its constructor takes the same arguments as `Model` (the values `get_init_inputs()` returns), its `forward` takes the tensors `get_inputs()` returns and returns what `Model.forward` returns. Compute with Triton kernels (`@triton.jit`) that you define in your module; at least one of them must run in every forward call.

keval builds `Model` and `ModelNew` from the same init inputs under the same seed, then copies Model's parameters and buffers into ModelNew by name: keep the names and shapes of Model's parameters and buffers (for example `self.gemm = nn.Linear(...)`, or an `nn.Parameter` under the same attribute path), so that ModelNew computes with Model's weights. Inputs are float32 tensors unless the problem makes integer tensors (those keep their dtype). Outputs are compared with Model's on fresh random inputs, with atol = rtol = 1e-2.

```python
{source.rstrip()}
```
"""


def reference_text(problem_path: str, runtime_path: str, scales: tuple) -> str:
    return f'''"""KernelBench problem (problem.py) as a keval reference: Model's forward is the oracle."""
{loader_snippet("_keval_kb_")}
_keval_kb_problem = _keval_kb_load({runtime_path!r}).problem({problem_path!r}, {scales!r})


def make_inputs(case, dtype, seed):
    return _keval_kb_problem.make_inputs(int(case.get("scale", 1)), seed)


def reference(*inputs):
    return _keval_kb_problem.reference(*inputs)
'''


def suffix_text(problem_path: str, runtime_path: str, scales: tuple) -> str:
    return f'''# keval KernelBench glue: defines {ENTRY}(*inputs) when the code above defines ModelNew.
# ModelNew(*get_init_inputs()) is built on the CPU under torch.manual_seed(0), receives Model's
# parameters and buffers by name, moves to the inputs' device and is called under no_grad.
{loader_snippet("_keval_kb_")}
_keval_kb_problem = _keval_kb_load({runtime_path!r}).problem({problem_path!r}, {scales!r})

if isinstance(globals().get("ModelNew"), type):
    def {ENTRY}(*inputs):
        return _keval_kb_problem.forward_new(ModelNew, inputs)
'''


def golden_text(problem_path: str, runtime_path: str, scales: tuple) -> str:
    return f'''# Golden of a KernelBench task: the problem's own PyTorch Model as ModelNew (KernelBench's
# eager baseline). It launches no Triton kernel, so `keval validate` reports no_kernel for it;
# `python -m keval_adapters kernelbench selfcheck` checks it against the reference instead.
{loader_snippet("_keval_kb_golden_")}
ModelNew = _keval_kb_golden_load({runtime_path!r}).problem({problem_path!r}, {scales!r}).module(1).Model

{suffix_text(problem_path, runtime_path, scales)}'''


def parse_select(text: str, what: str) -> list:
    """`1,2` or `1-3` or `level1` -> sorted ints."""
    chosen = set()
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        part = re.sub(r"^(?:level|l)", "", part, flags=re.I)
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise AdapterError(f"cannot read {what} {part!r} (expected e.g. 1,2 or 1-3)")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        chosen.update(range(lo, hi + 1))
    return sorted(chosen)


def split_select(text: str):
    """`1,2,any-code` -> (levels, require_kernel): `any-code` judges by KernelBench's own rule
    (any code that computes the right values passes, PyTorch included)."""
    parts = [p.strip() for p in (text or "").split(",") if p.strip()]
    any_code = "any-code" in parts
    levels = parse_select(",".join(p for p in parts if p != "any-code"), "level") or None
    return levels, not any_code


def adapt_suite(source: str, out: str, levels=None, require_kernel: bool = True) -> dict:
    problems = list_problems(source, levels)
    if not problems:
        raise AdapterError(f"{problems_root(source)}: no problem files (level*/<id>_<Name>.py)")
    runtime = runtime_text(RUNTIME_FILE)
    digest = file_digest(adapter_sources(PEER) + [p.path for p in problems],
                                   f"{ADAPTER_VERSION}\n{levels}\n{require_kernel}\n{sys.version}\n")
    writer = SuiteWriter(out, STAMP, digest)
    if writer.up_to_date:
        return writer.report()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # level 4 downloads models at import otherwise
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from . import runtime as runtime_module

    warnings.simplefilter("ignore")  # problem code warns about its own settings; not ours to show
    writer.begin()
    report = {"source": problems_root(source), "levels": levels or "all", "tasks": [], "skipped": {},
              "scaled": {}, "cpu_full_size": []}
    try:
        for problem in problems:
            planned = plan(problem, runtime_module)
            if "skip" in planned:
                report["skipped"][problem.relative] = planned["skip"]
                continue
            with open(problem.path, encoding="utf-8") as f:
                problem_source = f.read()
            final = writer.final_dir(problem.name)
            problem_path = os.path.join(final, "problem.py")
            runtime_path = os.path.join(final, "kernelbench_runtime.py")
            scales = tuple(planned["scales"])
            notes = planned["notes"]
            if len(scales) > 1:
                report["scaled"][problem.name] = scales[1]
            elif planned["cases"][0]["small"] and not fits_cpu(planned["full"]):
                report["cpu_full_size"].append(problem.name)
            fields = {
                "name": problem.name, "version": ADAPTER_VERSION, "adapter": PEER,
                "track": "ops" if problem.level == 1 else "real",
                "category": f"kernelbench_level{problem.level}",
                "difficulty": min(problem.level + 1, 5), "entry": ENTRY,
                "signature": "class ModelNew(nn.Module): ModelNew(*get_init_inputs())(*get_inputs()) -> Model's outputs",
                "instruction": instruction(problem, problem_source), "dtypes": ["float32"],
                "flops": "0", "bytes": "input_bytes + param_bytes + output_bytes",
                "require_kernel": require_kernel,
                "shared_inputs": False,  # the problem's get_inputs may build on CUDA: never in the zygote
                "inputs_on_device": True,  # drawn with the job's device as the default device
                "source": f"KernelBench {problem.relative}",
                "notes": "; ".join(notes) if notes else None,
            }
            toml = task_toml(fields, {"float32": TOLERANCE}, planned["cases"])
            writer.write(problem.name, "task.toml", toml)
            writer.write(problem.name, "problem.py", problem_source)
            writer.write(problem.name, "kernelbench_runtime.py", runtime)
            writer.write(problem.name, "reference.py", reference_text(problem_path, runtime_path, scales))
            writer.write(problem.name, "submission_suffix.py", suffix_text(problem_path, runtime_path, scales))
            writer.write(problem.name, "golden.py", golden_text(problem_path, runtime_path, scales))
            report["tasks"].append(problem.name)
        if not report["tasks"]:
            raise AdapterError(f"{problems_root(source)}: no problem could be adapted "
                               f"(first skip: {next(iter(report['skipped'].items()))})")
        writer.commit(report)
    except BaseException:
        writer.abort()
        raise
    return report
