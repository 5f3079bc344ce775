"""Shared by the KernelBench and KernelBenchX adapters (kernelbench.py, kernelbenchx.py).

- TOML text for task.toml (the controller parses it with toml++),
- writing a suite folder atomically, skipped when a stamp of its inputs is unchanged,
- the runtime file copied into every task folder (a job child loads it from there by path, so
  a sandboxed uid needs nothing outside the task folder),
- `selfcheck`: every task's golden against its reference, in this process (KernelBench's
  goldens are PyTorch, so `keval validate` reports `no_kernel` for them: this checks the glue).
"""

import argparse
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import tempfile
import sys
import time
import tomllib


class AdapterError(Exception):
    """A problem with the user's input: printed as the one-line reason (last stderr line)."""


# ---------------------------------------------------------------------------------------------
# TOML


def toml_string(text: str) -> str:
    """A TOML string: a multi-line literal string when the text allows, else a basic string."""
    text = str(text)
    plain = "'''" not in text and not text.endswith("'") and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)
    if "\n" in text and plain:
        return "'''\n" + text + "'''"
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value}")
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


FIELD_ORDER = ["name", "version", "track", "category", "difficulty", "entry", "signature",
               "instruction", "dtypes", "inplace", "require_kernel", "flops", "bytes", "source",
               "notes"]


def task_toml(fields: dict, tolerances: dict, cases: list) -> str:
    """task.toml text. tolerances: dtype -> (atol, rtol, reason); cases: dicts with name, small,
    params (and optionally dtypes)."""
    lines = []
    for key in FIELD_ORDER:
        if key in fields and fields[key] is not None:
            lines.append(f"{key} = {toml_value(fields[key])}")
    unknown = set(fields) - set(FIELD_ORDER)
    if unknown:
        raise ValueError(f"unknown task fields {sorted(unknown)}")
    lines.append("shared_inputs = false  # a peer's make_inputs may build on CUDA: never in the zygote")
    lines.append("inputs_on_device = true  # drawn with the job's device as the default device")
    for dtype, (atol, rtol, reason) in tolerances.items():
        lines += ["", f"[tolerance.{dtype}]", f"atol = {toml_value(float(atol))}",
                  f"rtol = {toml_value(float(rtol))}", f"reason = {toml_value(reason)}"]
    for case in cases:
        lines += ["", "[[cases]]", f"name = {toml_value(case['name'])}"]
        if case.get("small"):
            lines.append("small = true")
        lines.append(f"params = {toml_value(case.get('params', {}))}")
        if case.get("dtypes"):
            lines.append(f"dtypes = {toml_value(case['dtypes'])}")
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)  # a generator bug shows here, not as a load error in the controller
    return text


# ---------------------------------------------------------------------------------------------
# Names


def snake(text: str) -> str:
    """`Matmul_with_diagonal_matrices_` -> `matmul_with_diagonal_matrices`."""
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", text.lower())).strip("_")


# ---------------------------------------------------------------------------------------------
# Writing a suite folder


def file_digest(paths, extra: str = "") -> str:
    """sha256 over `extra` and the names and contents of `paths` (in the order given)."""
    digest = hashlib.sha256(extra.encode())
    for path in paths:
        digest.update(b"\0" + str(path).encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


class SuiteWriter:
    """Builds `out` in a sibling folder and swaps it in at the end; a no-op when the stamp of the
    inputs matches the one `out` was built from (`up_to_date`)."""

    def __init__(self, out: str, stamp_name: str, digest: str):
        self.out = os.path.abspath(out)
        self.stamp_name = stamp_name
        self.digest = digest
        self.building = f"{self.out}.building-{os.getpid()}"

    @property
    def up_to_date(self) -> bool:
        try:
            with open(os.path.join(self.out, self.stamp_name)) as f:
                return f.read().strip() == self.digest
        except OSError:
            return False

    def begin(self) -> None:
        if os.path.exists(self.out) and not (
                os.path.isdir(self.out) and (not os.listdir(self.out) or
                                             os.path.exists(os.path.join(self.out, self.stamp_name)))):
            raise AdapterError(f"{self.out}: exists and was not written by this adapter; give another --out")
        os.makedirs(os.path.dirname(self.out), exist_ok=True)
        shutil.rmtree(self.building, ignore_errors=True)
        os.makedirs(self.building)

    def task_dir(self, name: str) -> str:
        """Where a task is written now; files inside must name `final_dir(name)` instead."""
        path = os.path.join(self.building, name)
        os.makedirs(path, exist_ok=True)
        return path

    def final_dir(self, name: str) -> str:
        return os.path.join(self.out, name)

    def write(self, task: str, relative: str, text) -> None:
        path = os.path.join(self.building, task, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(path, mode, **({} if isinstance(text, bytes) else {"encoding": "utf-8"})) as f:
            f.write(text)

    def commit(self, report: dict) -> None:
        with open(os.path.join(self.building, "ADAPTED.json"), "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)
            f.write("\n")
        with open(os.path.join(self.building, self.stamp_name), "w") as f:
            f.write(self.digest + "\n")
        readable(self.building)
        old = f"{self.out}.old-{os.getpid()}"
        if os.path.exists(self.out):
            os.rename(self.out, old)
        os.rename(self.building, self.out)
        shutil.rmtree(old, ignore_errors=True)

    def abort(self) -> None:
        shutil.rmtree(self.building, ignore_errors=True)


def readable(root: str) -> None:
    """Folders 0755 and files 0644: job children may run as another uid and read task files."""
    for folder, dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


def runtime_text(module_file: str) -> str:
    with open(module_file, encoding="utf-8") as f:
        return f.read()


def loader_snippet(prefix: str) -> str:
    """Python text defining `{prefix}load(path)`: loads a runtime file copied into a task folder
    as a module named after its content, once per process (the suffix, golden.py and
    reference.py of one task then share it). Names start with `prefix`: in a submission they
    land in its own module."""
    return f'''
def {prefix}load(path):
    import hashlib, importlib.util, sys
    with open(path, "rb") as f:
        name = "{prefix}runtime_" + hashlib.sha256(f.read()).hexdigest()[:16]
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    return module
'''


# ---------------------------------------------------------------------------------------------
# Common command line


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


def run_main(kind: str, argv: list, verbs: dict) -> int:
    """Runs verbs[argv[0]](args); an AdapterError (or any failure) ends with a one-line reason."""
    parser = argparse.ArgumentParser(prog=f"python -m keval_runner.adapters {kind}")
    sub = parser.add_subparsers(dest="verb", required=True)
    for name, (configure, _) in verbs.items():
        configure(sub.add_parser(name))
    args = parser.parse_args(argv)
    try:
        return int(verbs[args.verb][1](args) or 0)
    except AdapterError as e:
        print(f"{kind}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # the last stderr line is what keval prints
        import traceback

        traceback.print_exc()
        print(f"{kind} adapter failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
              file=sys.stderr)
        return 1


# ---------------------------------------------------------------------------------------------
# selfcheck: goldens against references, in this process


def _load(path: str, name: str, text: str = None):
    spec = importlib.util.spec_from_loader(name, loader=None, origin=path)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = path
    sys.modules[name] = module
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    exec(compile(text, path, "exec"), module.__dict__)
    return module


def selfcheck(suite_dir: str, device: str = "cpu", seeds=(1, 2), all_cases: bool = False,
              tasks_glob: str = None, out=sys.stdout) -> dict:
    """For every task (small cases unless all_cases): golden (with the submission glue appended,
    as keval runs it) against reference.py on `seeds`, compared with the task's tolerance; the
    reference is also run twice on the same inputs (nondeterministic references cannot be judged).
    Returns counts; prints one line per task and a total."""
    import fnmatch

    import torch

    from keval_runner.compare import as_output_list, value_stats
    from keval_runner.inputs import build_inputs

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
            reference = _load(os.path.join(folder, "reference.py"), f"keval_selfcheck_ref_{index}")
            golden_text = open(os.path.join(folder, "golden.py"), encoding="utf-8").read()
            suffix_path = os.path.join(folder, "submission_suffix.py")
            if os.path.exists(suffix_path):
                golden_text += f"\n\n# --- keval adapter glue ({name}) ---\n" + open(suffix_path, encoding="utf-8").read()
            golden = _load(os.path.join(folder, "golden.py"), f"keval_selfcheck_golden_{index}", golden_text)
            entry = getattr(golden, task["entry"], None) or getattr(golden, "kernel_function")
            problems = []
            nondeterministic = False
            for case in task["cases"]:
                if not (case.get("small") or all_cases):
                    continue
                dtype = task["dtypes"][0]
                tol = task["tolerance"][dtype]
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


def add_selfcheck_arguments(parser) -> None:
    parser.add_argument("--source", required=True, help="the peer checkout")
    parser.add_argument("--out", help="suite folder to (re)use; default: a temporary folder")
    parser.add_argument("--select", default="", help="as for `suite`")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tasks", default=None, help="only tasks matching this glob")
    parser.add_argument("--all-cases", action="store_true", help="also the benchmark cases (GPU)")


def run_selfcheck(args, prefix: str, adapt) -> int:
    """The selfcheck verb of both KernelBench adapters: adapt into args.out (or a temporary
    folder, removed afterwards), run every golden against its reference, 0 when all pass."""
    out = args.out or tempfile.mkdtemp(prefix=prefix)
    adapt(out)
    try:
        counts = selfcheck(out, args.device, tasks_glob=args.tasks, all_cases=args.all_cases)
    finally:
        if not args.out:
            shutil.rmtree(out, ignore_errors=True)
    return 0 if counts["pass"] == counts["tasks"] else 1


def add_judges_arguments(parser, peer: str, timeout_help: str) -> None:
    """The compare-judges verb's arguments (the same for each peer)."""
    parser.add_argument("--results", required=True, help="results.jsonl of a keval run on these submissions")
    parser.add_argument("--source", required=True, help="the submissions that run used (.py, .jsonl, folder)")
    parser.add_argument("--suite", default=None, help=f"{peer} checkout (default: above --source)")
    parser.add_argument("--out", required=True, help="JSON report to write")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--timeout", type=float, default=300.0, help=timeout_help)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--deadline", type=float, default=0.0,
                        help="seconds the whole comparison may take (0: no limit); scripts not run by then are skipped")
