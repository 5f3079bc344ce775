"""`compare-judges`: keval's verdicts next to what KernelBenchX's own harness would have said.

KernelBenchX's criterion (EVAL/0_call_acc.py, EVAL/1_exe_acc.py, utils/correction_utils.py),
reproduced with its weaknesses, since showing where it and keval disagree is the point:
- code: a JSONL line's `predict` through KernelBenchX's clear_code (the first ```python block up
  to the next fence, chat end tokens removed, stripped; not cut at the separator, unlike keval);
  a `.py` submission: its text above the separator;
- call: fails when that code is empty, or when its part above the first separator neither
  defines nor assigns `<stem>` or `kernel_function` at the top level (impl_must_export_kernel);
  else code + the 146-'#' line + the task file's test part (after its last separator) run as a
  script from the checkout's root: call = exit 0. KernelBenchX's quantisation check is handed the
  file's basename, never contains "Quantization/", so it never fires: not reproduced;
- exec (after a passed call): ONE process seeds random and torch with KERNELBENCHX_SEED (default
  0), runpy's the script, seeds again, runpy's the task file, and compares the two `test_results`
  (`compare_values`): an earlier file's global changes (a patched torch function, TF32 switched
  on) apply to the reference too, and one seed is the only one tried.
Scripts run in a subprocess (own process group, killed at the timeout; KernelBenchX has none), on
the GPU when present, else under the Triton interpreter with the CPU emulation of runtime.py
('cuda' in the test parts and in utils/data_utils.py rewritten to the CPU). Like KernelBenchX's
harness, and unlike keval's jobs, they run outside any sandbox.
"""

import ast
import concurrent.futures
import json
import os
import runpy
import sys
import tempfile
import types

from ..common import judge_process, judges_report
from ..common.checkout_search import find_checkout
from ..common.judges_report import keval_fields, read_results, resolve_device, tail
from ..common.peer_file import SEPARATOR, split_file
from ..common.runner_path import child_command
from .checkout import Checkout, is_checkout
from .criterion import compare_values, exports_kernel, kernelbenchx_code, seed_all
from .submissions import match_submissions

# The child: this module's `child()` in a fresh interpreter (`args.python` need not be ours).
CHILD = child_command("keval_adapters.kernelbenchx.judges", "child")


def install_cpu_data_utils(root: str) -> None:
    """utils/data_utils.py (its factories default to 'cuda') rewritten to the CPU, in sys.modules
    before the test part's `from data_utils import ...`."""
    from . import runtime as rt

    path = os.path.join(root, "utils", "data_utils.py")
    if os.path.isfile(path):
        module = types.ModuleType("data_utils")
        module.__file__ = path
        module.__dict__.update({rt.DEVICE_NAME: "cpu", "_keval_synchronize": rt._synchronize})
        exec(rt.rewritten(path), module.__dict__)
        sys.modules["data_utils"] = module


def run_script(path: str, cpu: bool) -> dict:
    """runpy.run_path(path, run_name="__main__"); on the CPU the same with every statement after
    the first separator (the test part) through the runtime's 'cuda' rewrite."""
    if not cpu:
        return runpy.run_path(path, run_name="__main__")
    from . import runtime as rt

    with open(path, encoding="utf-8") as f:
        text = f.read()
    tree = ast.parse(text, path)
    cut = next((i for i, line in enumerate(text.splitlines(), start=1) if SEPARATOR in line), None)
    if cut is not None:
        tree.body = [rt._DeviceRewrite().visit(n) if n.lineno > cut else n for n in tree.body]
    code = compile(ast.fix_missing_locations(tree), path, "exec")
    module = types.ModuleType("__main__")
    module.__dict__.update({"__file__": path, rt.DEVICE_NAME: "cpu", "_keval_synchronize": rt._synchronize})
    saved, saved_argv0 = sys.modules.get("__main__"), sys.argv[0] if sys.argv else None
    sys.modules["__main__"] = module
    if sys.argv:
        sys.argv[0] = path
    try:
        exec(code, module.__dict__)
    finally:
        sys.modules["__main__"] = saved
        if sys.argv:
            sys.argv[0] = saved_argv0
    return dict(module.__dict__)


def child(argv: list) -> int:
    """`call SCRIPT` (CPU only; on the GPU the script runs as `python SCRIPT`) or
    `exec SCRIPT TASK_FILE RESULT_JSON THRESHOLDS_JSON cpu|cuda`."""
    if argv[0] == "call":
        path = argv[1]
        install_cpu_data_utils(os.getcwd())
        sys.argv = [path]
        sys.path[0] = os.path.dirname(path)  # as `python SCRIPT` has it
        run_script(path, cpu=True)
        return 0
    script, task_file, out, thresholds, device = argv[1:6]
    cpu = device == "cpu"
    if cpu:
        install_cpu_data_utils(os.getcwd())
    result = {"ok": False, "error": ""}
    try:
        seed = int(os.environ.get("KERNELBENCHX_SEED", "0"))
        seed_all(seed)
        r1 = run_script(script, cpu).get("test_results", None)
        seed_all(seed)
        r2 = run_script(task_file, cpu).get("test_results", None)
        if r1 is None or r2 is None:
            raise AssertionError("missing `test_results` in one or both files")
        compare_values(r1, r2, "test_results", json.loads(thresholds) or None)
        result["ok"] = True
    except Exception as e:  # noqa: BLE001 - KernelBenchX's own `except Exception`: a fail
        result["error"] = f"{type(e).__name__}: {e}"
    except BaseException as e:  # SystemExit escapes KernelBenchX's except and aborts its whole run
        result["error"] = f"{type(e).__name__} escaped ({e!r}): KernelBenchX's run would abort"
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


# ---------------------------------------------------------------------------------------------
# The parent: one submission through both stages


class Judge:
    def __init__(self, checkout, python: str, device: str, timeout: float, workdir: str):
        self.checkout, self.python, self.device, self.timeout, self.workdir = checkout, python, device, timeout, workdir
        self.stems = checkout.stems()
        self.env = dict(os.environ)
        if device == "cpu":
            self.env["TRITON_INTERPRET"] = "1"
        else:
            self.env.pop("TRITON_INTERPRET", None)

    def process(self, command: list) -> dict:
        return judge_process.run_script(command, self.checkout.root, self.env, self.timeout)

    def task_file(self, stem: str) -> str:
        path = os.path.join(self.checkout.data, self.stems[stem]["file"])
        if not os.path.exists(path):  # KernelBenchX falls back on a search by basename
            for folder, _, names in os.walk(self.checkout.data):
                if f"{stem}.py" in names:
                    return os.path.join(folder, f"{stem}.py")
        return path

    def judge(self, record: dict) -> dict:
        """{call, exec, timeout, error}: KernelBenchX's two stages for one matched record."""
        stem = record["task"]
        out = {"call": False, "exec": False, "timeout": False, "error": ""}
        if record.get("item") is not None:
            predict = record["item"].get("predict", record["item"].get("code"))
            code = kernelbenchx_code(predict)
        else:
            code = record["code"]  # a .py: its text above the separator, not cleaned
        if not code.strip():
            out["error"] = "Generation failed: empty prediction from model"
            return out
        ok, why = exports_kernel(split_file(code)[0], stem)
        if not ok:
            out["error"] = why
            return out
        gold = self.task_file(stem)
        with open(gold, encoding="utf-8") as f:
            above, below = split_file(f.read(), last=True)
        test = above if below is None else below  # what follows the last separator, as KernelBenchX takes it
        if "def test_" not in test:
            out["error"] = f"No test_ function in {stem}.py (KernelBenchX's run would abort)"
            return out
        folder = os.path.join(self.workdir, "".join(c if c.isalnum() else "_" for c in record["id"]))
        os.makedirs(folder, exist_ok=True)
        script = os.path.join(folder, f"{stem}.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(code + "\n" + SEPARATOR + "\n" + test)
        child_command = [self.python, "-c", CHILD]
        run = self.process(child_command + ["call", script] if self.device == "cpu" else [self.python, script])
        if run.get("skipped"):
            return {"skipped": True}
        out["call"], out["timeout"] = run["rc"] == 0, run["timeout"]
        if not out["call"]:
            out["error"] = tail(run["stderr"])
            return out
        result_path = os.path.join(folder, "exec.json")
        thresholds = json.dumps(self.stems[stem].get("precision_thresholds") or {})
        run = self.process(child_command + ["exec", script, gold, result_path, thresholds, self.device])
        if run.get("skipped"):
            return {"skipped": True}
        out["timeout"] = run["timeout"]
        try:
            with open(result_path, encoding="utf-8") as f:
                result = json.load(f)
        except (OSError, ValueError):
            result = {"ok": False, "error": f"no result (exit {run['rc']}): {tail(run['stderr'], 300)}"}
        out["exec"], out["error"] = bool(result["ok"]), tail(result["error"])
        return out


# ---------------------------------------------------------------------------------------------
# The report


def result_for(record: dict, results: dict, by_origin: dict):
    """keval's row for a record: by id, else (keval's own {predict, file} reader, whose ids are
    hashes when the line has none) by origin FILE:LINE."""
    row = results.get(str(record["id"]))
    if row is None and record.get("line") is not None:
        row = by_origin.get((os.path.realpath(record["path"]), record["line"]))
    return row


def origins(results: dict) -> dict:
    found = {}
    for row in results.values():
        path, _, line = str(row.get("origin") or "").rpartition(":")
        if path and line.isdigit():
            found[(os.path.realpath(path), int(line))] = row
    return found


def compare(args) -> int:
    root = find_checkout(args.source, args.suite, is_checkout,
                         "no KernelBenchX checkout above it (give --suite CHECKOUT)")
    checkout = Checkout(root)
    records = match_submissions(args.source, root)
    results = read_results(args.results)
    by_origin = origins(results)
    device = resolve_device(args.device)
    report = {"kind": "kernelbenchx", "device": device, "submissions": args.source, "results": args.results,
              "checkout": checkout.root, "n_lines": len(records), "unmatched": 0, "not_in_results": 0}
    todo = []
    for record in records:
        row = result_for(record, results, by_origin) if record["task"] else None
        if record["task"] is None:
            report["unmatched"] += 1
        elif row is None:
            report["not_in_results"] += 1
        else:
            todo.append((record, row))

    with tempfile.TemporaryDirectory(prefix="keval-kbx-judges-") as workdir:
        judge = Judge(checkout, args.python, device, args.timeout, workdir)
        judge_process.set_deadline(args.deadline)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            runs = list(pool.map(lambda pair: judge.judge(pair[0]), todo))

    items = []
    report["skipped_at_deadline"] = sum(1 for run in runs if run.get("skipped"))
    for (record, row), run in zip(todo, runs):
        if run.get("skipped"):
            continue
        items.append({"id": record["id"], "task": record["task"], **keval_fields(row),
                      "kernelbenchx_call": run["call"], "kernelbenchx_exec": run["exec"],
                      "kernelbenchx_timeout": run["timeout"], "kernelbenchx_error": run["error"]})
    return judges_report.finish(report, items, "kernelbenchx", "KernelBenchX", disagreement_reason, args.out)


def disagreement_reason(item) -> str:
    """A disagreement's one-line reason in the table."""
    if item["keval_reason"]:
        return f"keval {item['keval_verdict']}: {item['keval_reason']}"
    lines = [line for line in item["kernelbenchx_error"].splitlines() if line.strip()]
    return f"keval {item['keval_verdict']}; KernelBenchX: {lines[-1].strip() if lines else 'fail'}"
