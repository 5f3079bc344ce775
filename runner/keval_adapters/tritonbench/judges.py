"""`compare-judges`: keval's verdicts next to what TritonBench's own harness would have said.

TritonBench's criterion (EVAL/eval_{G,T}/0_call_acc.py and 1_exe_acc.py), reproduced:
- the model's text is cut after its last "```python" (chat end tokens removed); for G it is then
  reduced to its imports and function definitions (every `def` at any depth, via ast.walk; classes
  and module constants are dropped), unless that text does not parse;
- the program is that code + a 146-'#' line + the task file's test part, run as a script;
- call: the script exits 0; exec: it passed call and its stdout equals the stdout of the task's
  own file (reference + test) run the same way.
Scripts run in a subprocess (own process group, killed at the timeout; TritonBench has none), in
a temporary folder, on the GPU when present, else under the Triton interpreter with the CPU
emulation of runtime.py (tests hard-code 'cuda'). Like TritonBench's harness, and unlike keval's
jobs, they run outside any sandbox, as the invoking user.
"""

import concurrent.futures
import os
import tempfile

from ..common import judge_process, judges_report
from ..common.checkout_search import find_checkout
from ..common.judges_report import keval_fields, read_results, resolve_device, tail
from ..common.peer_file import SEPARATOR, split_file
from .checkout import MISSING_CHECKOUT, Checkout, is_checkout, task_name
from .criterion import tritonbench_code
from .submissions import match_submissions
from .templates import runtime_text


BOOT = """
import runpy, sys
sys.argv = sys.argv[1:]
with _keval_tb_test_context(fill_empty=False):
    runpy.run_path(sys.argv[0], run_name="__main__")
"""


class ScriptRunner:
    def __init__(self, python: str, device: str, timeout: float, workdir: str):
        self.python, self.device, self.timeout, self.workdir = python, device, timeout, workdir
        self.env = dict(os.environ)
        self.boot = None
        if device == "cpu":
            self.env["TRITON_INTERPRET"] = "1"
            self.boot = os.path.join(workdir, "keval_tritonbench_boot.py")
            with open(self.boot, "w", encoding="utf-8") as f:
                f.write(runtime_text() + BOOT)
        else:
            self.env.pop("TRITON_INTERPRET", None)

    def run(self, folder: str, file: str, text: str) -> dict:
        """Runs text as folder/file the way TritonBench's harness does."""
        folder = os.path.join(self.workdir, folder)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, file)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        command = [self.python] + ([self.boot] if self.boot else []) + [path]
        return judge_process.run_script(command, folder, self.env, self.timeout)


def compare(args, kind: str) -> int:
    records = match_submissions(args.source, kind, args.suite)
    checkout = Checkout(find_checkout(args.source, args.suite, is_checkout, MISSING_CHECKOUT), kind)
    files = {task_name(f): f for f in checkout.files()}
    results = read_results(args.results)
    device = resolve_device(args.device)
    judge_process.set_deadline(args.deadline)
    report = {"kind": f"tritonbench-{kind.lower()}", "device": device, "submissions": args.source,
              "results": args.results, "n_lines": len(records), "unmatched": 0, "not_in_results": 0}
    todo = []
    for record in records:
        if record["task"] is None:
            report["unmatched"] += 1
        elif record["id"] not in results:
            report["not_in_results"] += 1
        else:
            todo.append(record)

    with tempfile.TemporaryDirectory(prefix="keval-tb-judges-") as workdir:
        runner = ScriptRunner(args.python, device, args.timeout, workdir)
        tasks = sorted({r["task"] for r in todo})

        def gold(task):
            with open(os.path.join(checkout.data_dir, files[task]), encoding="utf-8") as f:
                return runner.run(f"gold/{task}", files[task], f.read())

        def candidate(record):
            item = record["item"]
            predict = item.get("predict", item.get("code"))
            predict = predict if isinstance(predict, str) else ""
            with open(os.path.join(checkout.data_dir, files[record["task"]]), encoding="utf-8") as f:
                test = split_file(f.read(), last=True)[1]
            program = tritonbench_code(predict, kind) + "\n" + SEPARATOR + "\n" + test
            folder = "run/" + "".join(c if c.isalnum() else "_" for c in record["id"])
            return runner.run(folder, files[record["task"]], program)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            golds = dict(zip(tasks, pool.map(gold, tasks)))
            runs = list(pool.map(candidate, todo))

    # the task files themselves, run as TritonBench runs them: where one fails, TritonBench's
    # own harness fails its gold too (a Triton or GPU incompatibility, not keval's judging)
    report["gold_failures"] = {task: {"rc": run["rc"], "timeout": run["timeout"], "stderr": tail(run["stderr"])}
                               for task, run in sorted(golds.items()) if run["rc"] != 0 and not run.get("skipped")}
    items = []
    report["skipped_at_deadline"] = 0
    for record, run in zip(todo, runs):
        golden = golds[record["task"]]
        if run.get("skipped") or golden.get("skipped"):
            report["skipped_at_deadline"] += 1
            continue
        tb_call = run["rc"] == 0
        tb_exec = tb_call and run["stdout"] == golden["stdout"]
        item = {"id": record["id"], "task": record["task"], **keval_fields(results[record["id"]]),
                "tritonbench_call": tb_call, "tritonbench_exec": tb_exec,
                "tritonbench_timeout": run["timeout"], "gold_rc": golden["rc"]}
        if not tb_call:
            item["tritonbench_stderr"] = tail(run["stderr"])
        elif not tb_exec:
            item["tritonbench_stdout"] = tail(run["stdout"])
            item["gold_stdout"] = tail(golden["stdout"])
        items.append(item)
    return judges_report.finish(report, items, "tritonbench", "TritonBench", lambda item: (
        f"keval {item['keval_verdict']}: {item['keval_reason'] or item.get('tritonbench_stderr', '')}"), args.out)
