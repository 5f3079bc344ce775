"""`compare-judges`: keval's verdicts next to what KernelBench's own harness would have said.

KernelBench's criterion (src/kernelbench/eval.py, scripts/eval_from_generations.py) is
reproduced, weaknesses included, in criterion.py: one process for the problem and the
submission, seed 42 before each constructor and no weight copy, every input cast to float32,
5 trials with seeds drawn from seed 42, torch.allclose with atol = rtol = 1e-4. Here:
- submissions are matched to problems as `kernelbench submissions` does (submissions.py
  match_submissions), so the ids are those of keval's results; the code is what keval took (the
  fenced block defining ModelNew), KernelBench's kernel file;
- each runs in a fresh interpreter (own process group, killed at the timeout: a timed-out sample
  is not compiled for KernelBench too, whose limit is 180 s), on cuda:0 when there is a GPU;
- without one (or `--device cpu`): on the CPU under TRITON_INTERPRET=1, with models and inputs
  moved to the CPU instead of cuda (as runtime.py runs keval's CPU jobs), and a problem too
  big for the interpreter replaced by the CPU-sized variant keval's CPU run judges
  (sizing.plan, runtime.scaled_tree); on the GPU the problem as written.
Like KernelBench's harness, and unlike keval's jobs, they run outside any sandbox.
"""

import ast
import concurrent.futures
import json
import os
import tempfile
import warnings

from ..common import judge_process, judges_report
from ..common.checkout_search import find_checkout
from ..common.judges_report import keval_fields, read_results, resolve_device, tail
from ..common.runner_path import child_command
from .problems import MISSING_CHECKOUT, is_checkout, list_problems, problems_root
from .sizing import plan
from .submissions import match_submissions

# The child: this module's `child()` in a fresh interpreter (`args.python` need not be ours).
CHILD = child_command("keval_adapters.kernelbench.judges", "child")


def child(argv: list) -> int:
    """`REFERENCE_PY SUBMISSION_PY RESULT_JSON cpu|cuda`: KernelBench's evaluation of one sample."""
    from .criterion import evaluate, outcome

    reference, submission, out, device = argv[:4]
    with open(reference, encoding="utf-8") as f:
        original_src = f.read()
    with open(submission, encoding="utf-8") as f:
        custom_src = f.read()
    try:
        result = evaluate(original_src, custom_src, "cuda:0" if device == "cuda" else "cpu")
    except BaseException as e:  # noqa: BLE001 - SystemExit kills KernelBench's pool worker: a timeout there
        result = outcome(False, False, f"{type(e).__name__} escaped ({e!r}): KernelBench's worker dies, "
                                       f"the sample times out")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


def reference_sources(tasks: set, checkout: str, device: str) -> dict:
    """task -> the problem source KernelBench's run gets: the file itself; on the CPU the variant
    keval's CPU run judges when the problem has one."""
    from . import runtime as rt

    sources = {}
    problems = {p.name: p for p in list_problems(checkout)}
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # as `kernelbench suite` sizes problems
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    for task in sorted(tasks):
        problem = problems[task]
        with open(problem.path, encoding="utf-8") as f:
            text = f.read()
        if device == "cpu":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scales = plan(problem, rt).get("scales", (1,))  # plan() uses SIGALRM: main thread
            if scales[-1] != 1:
                text = ast.unparse(rt.scaled_tree(text, problem.path, scales[-1]))
        sources[task] = text
    return sources


class Judge:
    def __init__(self, python: str, device: str, timeout: float, workdir: str, sources: dict):
        self.python, self.device, self.timeout, self.workdir = python, device, timeout, workdir
        self.sources = sources
        self.env = dict(os.environ)
        if device == "cpu":
            self.env["TRITON_INTERPRET"] = "1"
        else:
            self.env.pop("TRITON_INTERPRET", None)

    def process(self, command: list, folder: str) -> dict:
        env = dict(self.env, TMPDIR=folder)  # KernelBench's temporary module file lands here
        return judge_process.run_script(command, folder, env, self.timeout)

    def judge(self, record: dict) -> dict:
        """{call, exec, trials, timeout, error}: KernelBench's compiled and correctness."""
        folder = os.path.join(self.workdir, "".join(c if c.isalnum() else "_" for c in record["id"]))
        os.makedirs(folder, exist_ok=True)
        paths = {name: os.path.join(folder, name) for name in ("reference.py", "submission.py", "result.json")}
        with open(paths["reference.py"], "w", encoding="utf-8") as f:
            f.write(self.sources[record["task"]])
        with open(paths["submission.py"], "w", encoding="utf-8") as f:
            f.write(record["code"])
        run = self.process([self.python, "-c", CHILD, paths["reference.py"], paths["submission.py"],
                            paths["result.json"], self.device], folder)
        if run.get("skipped"):
            return {"skipped": True}
        try:
            with open(paths["result.json"], encoding="utf-8") as f:
                result = json.load(f)
        except (OSError, ValueError):
            why = run["stderr"] if run["timeout"] else f"no result (exit {run['rc']}): {tail(run['stderr'], 300)}"
            result = {"compiled": False, "correctness": False, "error": why, "trials": ""}
        return {"call": bool(result["compiled"]), "exec": bool(result["correctness"]), "trials": result["trials"],
                "timeout": run["timeout"], "error": tail(result["error"])}


# ---------------------------------------------------------------------------------------------
# The report


def compare(args) -> int:
    checkout = find_checkout(args.source, args.suite, is_checkout, MISSING_CHECKOUT)
    records = match_submissions(args.source, checkout)
    results = read_results(args.results)
    device = resolve_device(args.device)
    report = {"kind": "kernelbench", "device": device, "submissions": args.source, "results": args.results,
              "checkout": problems_root(checkout), "n_lines": len(records), "unmatched": 0,
              "not_in_results": 0}
    todo = []
    for record in records:
        if record["task"] is None or results.get(record["id"], {}).get("task", record["task"]) != record["task"]:
            report["unmatched"] += 1  # or keval's run left it unmatched (its suite spec chose other levels)
        elif record["id"] not in results:
            report["not_in_results"] += 1
        else:
            todo.append(record)
    sources = reference_sources({r["task"] for r in todo}, checkout, device)
    judge_process.set_deadline(args.deadline)

    with tempfile.TemporaryDirectory(prefix="keval-kb-judges-") as workdir:
        judge = Judge(args.python, device, args.timeout, workdir, sources)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            runs = list(pool.map(judge.judge, todo))

    report["skipped_at_deadline"] = sum(1 for run in runs if run.get("skipped"))
    items = [{"id": record["id"], "task": record["task"], **keval_fields(results[record["id"]]),
              "kernelbench_call": run["call"], "kernelbench_exec": run["exec"],
              "kernelbench_trials": run["trials"], "kernelbench_timeout": run["timeout"],
              "kernelbench_error": run["error"]} for record, run in zip(todo, runs) if not run.get("skipped")]
    return judges_report.finish(report, items, "kernelbench", "KernelBench", disagreement_reason, args.out)


def disagreement_reason(item) -> str:
    """A disagreement's one-line reason in the table."""
    text = f"keval {item['keval_verdict']}" + (f": {item['keval_reason']}" if item["keval_reason"] else "")
    if item["kernelbench_error"]:
        text += f"; KernelBench: {item['kernelbench_error']}"
    return " ".join(text.split())
