"""`selfcheck`: every task's golden against its reference, in this process.

Not a judge: it never decides a submission's verdict. It checks an adapter's own generated
files (the peer's golden with the submission glue appended, against reference.py) without the
controller, the sandbox or a GPU, so a broken adaptation shows before a run; KernelBench's
goldens are PyTorch, which `keval validate` reports as no_kernel unless the suite spec ends in
any-code. It reports facts (outputs over the task's tolerance, a reference that differs from
itself) with the runner's own comparison (compare.value_stats); its one rule, any element over
tolerance fails, is the controller's mismatch rule applied to goldens only.
"""

import fnmatch
import os
import shutil
import sys
import tempfile
import time
import tomllib

from .adapter import Verb
from .module_file import load_module


def selfcheck(suite_dir: str, device: str = "cpu", seeds=(1, 2), all_cases: bool = False,
              tasks_glob: str = None, out=sys.stdout) -> dict:
    """For every task (small cases unless all_cases): golden (with the submission glue appended,
    as keval runs it) against reference.py on `seeds`, compared with the task's tolerance; the
    reference is also run twice on the same inputs (nondeterministic references cannot be judged).
    Returns counts; prints one line per task and a total."""
    import torch

    from keval_runner.compare.compare import as_output_list, value_stats
    from keval_runner.inputs.inputs import build_inputs

    dev = torch.device(device)
    names = sorted(n for n in os.listdir(suite_dir) if os.path.isfile(os.path.join(suite_dir, n, "task.toml")))
    if tasks_glob:
        names = [n for n in names if fnmatch.fnmatch(n, tasks_glob)]
    counts = {"tasks": len(names), "pass": 0, "fail": 0, "nondeterministic": 0, "error": 0}
    for index, name in enumerate(names):
        folder = os.path.join(suite_dir, name)
        started = time.time()
        with open(os.path.join(folder, "task.toml"), "rb") as f:
            task = tomllib.load(f)
        try:
            reference = load_module(os.path.join(folder, "reference.py"), f"keval_selfcheck_ref_{index}")
            golden_text = open(os.path.join(folder, "golden.py"), encoding="utf-8").read()
            suffix_path = os.path.join(folder, "submission_suffix.py")
            if os.path.exists(suffix_path):
                golden_text += f"\n\n# --- keval adapter glue ({name}) ---\n" + open(suffix_path, encoding="utf-8").read()
            golden = load_module(os.path.join(folder, "golden.py"), f"keval_selfcheck_golden_{index}", golden_text)
            entry = getattr(golden, task["entry"], None) or getattr(golden, "kernel_function")
            problems = []
            nondeterministic = False
            for case in task["cases"]:
                if not (case.get("small") or all_cases):
                    continue
                dtype = task["dtypes"][0]
                tol = (case.get("tolerance") or {}).get(dtype) or task["tolerance"][dtype]  # a case's own first
                for seed in seeds:
                    planned = {"name": case["name"], "params": case.get("params", {}), "dtype": dtype}
                    args = build_inputs(reference.make_inputs, planned, seed, dev)
                    with torch.device(dev):
                        ref = as_output_list(reference.reference(*args))
                        again = as_output_list(reference.reference(*build_inputs(reference.make_inputs, planned, seed, dev)))
                    got = as_output_list(entry(*build_inputs(reference.make_inputs, planned, seed, dev)))
                    if len(ref) != len(again) or any(
                            value_stats(b, a, 0.0, 0.0)["n_over_tol"] for a, b in zip(ref, again)
                            if a.shape == b.shape and a.dtype == b.dtype):
                        nondeterministic = True
                    if len(got) != len(ref):
                        problems.append(f"{case['name']}/{seed}: {len(got)} outputs, reference has {len(ref)}")
                        continue
                    for i, (g, r) in enumerate(zip(got, ref)):
                        if g.shape != r.shape or g.dtype != r.dtype:
                            problems.append(f"{case['name']}/{seed} output {i}: {g.dtype}{list(g.shape)} vs {r.dtype}{list(r.shape)}")
                            continue
                        over = value_stats(g, r, tol["atol"], tol["rtol"])["n_over_tol"]
                        if over:
                            problems.append(f"{case['name']}/{seed} output {i}: {over} of {r.numel()} over tolerance")
            if problems:
                counts["fail"] += 1
                status = "FAIL " + "; ".join(problems[:3])
            else:
                counts["pass"] += 1
                status = "ok"
            if nondeterministic:
                counts["nondeterministic"] += 1
                status += " (reference is nondeterministic)"
        except Exception as e:  # noqa: BLE001 - a report line per task
            counts["error"] += 1
            status = f"ERROR {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        print(f"{name}: {status} ({time.time() - started:.1f} s)", file=out, flush=True)
    print(f"selfcheck: {counts['pass']} of {counts['tasks']} goldens match their reference "
          f"({counts['fail']} mismatch, {counts['error']} errors, {counts['nondeterministic']} "
          f"nondeterministic references)", file=out, flush=True)
    return counts


def selfcheck_verb(prefix: str, adapt) -> Verb:
    """`selfcheck --source CHECKOUT [--out DIR] [--select X] [--device D] [--tasks GLOB]
    [--all-cases]`: adapt(args, out) into --out (or a temporary folder, removed afterwards), then
    every golden against its reference; 0 when all pass."""

    def configure(parser):
        parser.add_argument("--source", required=True, help="the peer checkout")
        parser.add_argument("--out", help="suite folder to (re)use; default: a temporary folder")
        parser.add_argument("--select", default="", help="as for `suite`")
        parser.add_argument("--device", default="cpu")
        parser.add_argument("--tasks", default=None, help="only tasks matching this glob")
        parser.add_argument("--all-cases", action="store_true", help="also the benchmark cases (GPU)")

    def run(args):
        out = args.out or tempfile.mkdtemp(prefix=prefix)
        adapt(args, out)
        try:
            counts = selfcheck(out, args.device, tasks_glob=args.tasks, all_cases=args.all_cases)
        finally:
            if not args.out:
                shutil.rmtree(out, ignore_errors=True)
        return 0 if counts["pass"] == counts["tasks"] else 1

    return Verb(configure, run, "every golden against its reference, in this process")
