"""KernelBench (github.com/ScalingIntelligence/KernelBench) as keval tasks.

    python -m keval_runner.adapters kernelbench suite --source CHECKOUT --out DIR [--select 1,2]
    python -m keval_runner.adapters kernelbench submissions --source PATH --out OUT.jsonl [--suite CHECKOUT]
    python -m keval_runner.adapters kernelbench selfcheck --source CHECKOUT [--select 1] [--device cpu]
    python -m keval_runner.adapters kernelbench compare-judges --results RESULTS.jsonl --source PATH --out REPORT.json

A task is one problem file `KernelBench/level{N}/{id}_{Name}.py` (`class Model`,
`get_inputs()`, `get_init_inputs()`). A submission defines `class ModelNew` (KernelBench's own
contract); the glue appended to it (`submission_suffix.py`) defines the entry
`kernelbench_forward(*inputs)`: builds Model and ModelNew under the same seed, copies Model's
weights into ModelNew by name, calls ModelNew. docs/peers.md has the whole mapping.
"""

import ast
import contextlib
import json
import os
import re
import signal
import symtable
import sys
import warnings

from . import kb_common
from .kb_common import AdapterError

ADAPTER_VERSION = 1  # the generated tasks' `version`: bump when their meaning changes
ENTRY = "kernelbench_forward"
STAMP = ".kernelbench-stamp"
RUNTIME_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernelbench_runtime.py")
FILE_RE = re.compile(r"^(\d+)_(.+)\.py$")
LEVEL_RE = re.compile(r"^level(\d+)$")

# CPU (Triton interpreter) budget for the small case; bigger problems get a scaled variant.
SMALL_INPUT_ELEMS = 1 << 20
SMALL_OUTPUT_ELEMS = 1 << 20
SMALL_PARAM_ELEMS = 1 << 22
FACTORS = (2, 4, 8, 16, 32, 64, 128, 256)
REAL_RUN_SECONDS = 30  # a scaled variant the meta device cannot run is tried for real on the CPU
META_RUN_SECONDS = 10  # meta runs of recurrent models step through Python: give up on those

TOLERANCE = (1e-2, 1e-2, "KernelBench's published check: torch.allclose(atol=1e-2, rtol=1e-2) in float32 "
             "(v0/v0.1; its current eval.py defaults to 1e-4 for fp32)")


# ---------------------------------------------------------------------------------------------
# The checkout


def problems_root(source: str) -> str:
    """The folder holding level1/, level2/...: CHECKOUT/KernelBench or the folder itself."""
    source = os.path.abspath(source)
    for folder in (os.path.join(source, "KernelBench"), source):
        if os.path.isdir(folder) and any(LEVEL_RE.match(n) for n in os.listdir(folder)):
            return folder
    raise AdapterError(f"{source}: not a KernelBench checkout (no KernelBench/level*/ folders)")


class ProblemFile:
    def __init__(self, level: int, path: str):
        self.level = level
        self.path = path
        self.file = os.path.basename(path)
        m = FILE_RE.match(self.file)
        self.pid = int(m.group(1))
        self.title = m.group(2)
        self.name = f"l{level}_{self.pid}_{kb_common.snake(self.title)}"
        self.relative = f"level{level}/{self.file}"


def list_problems(source: str, levels=None) -> list:
    root = problems_root(source)
    found = []
    for entry in os.listdir(root):
        m = LEVEL_RE.match(entry)
        if not m or (levels and int(m.group(1)) not in levels):
            continue
        level = int(m.group(1))
        for name in os.listdir(os.path.join(root, entry)):
            if FILE_RE.match(name):
                found.append(ProblemFile(level, os.path.join(root, entry, name)))
    found.sort(key=lambda p: (p.level, p.pid, p.file))
    if levels:
        missing = sorted(set(levels) - {p.level for p in found})
        if missing:
            raise AdapterError(f"{root}: no problems in level {', '.join(map(str, missing))}")
    return found


# ---------------------------------------------------------------------------------------------
# Sizing a problem (meta device; a real CPU run only for small variants the meta device cannot run)


def _tensors(value, out=None) -> list:
    import torch

    out = [] if out is None else out
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _tensors(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _tensors(v, out)
    return out


def _stats(tensors) -> tuple:
    seen, elems, nbytes = set(), 0, 0
    for t in tensors:
        key = id(t)
        if key in seen:
            continue
        seen.add(key)
        elems += t.numel()
        nbytes += t.numel() * t.element_size()
    return elems, nbytes


@contextlib.contextmanager
def _time_limit(seconds: int):
    def expire(signum, frame):
        raise TimeoutError(f"took over {seconds} s")

    if not hasattr(signal, "SIGALRM"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def measure(module, device: str = "meta") -> dict:
    """Elements and bytes of inputs, parameters+buffers and outputs of one forward call;
    `error` says where it stopped (the sizes found so far are kept)."""
    import torch

    result = {"input_elems": None, "input_bytes": 0, "param_elems": 0, "param_bytes": 0,
              "output_elems": 0, "output_bytes": 0, "error": None, "device": device}
    stage = "get_inputs()"
    try:
        with torch.random.fork_rng(devices=[]), torch.device(device), \
                _time_limit(REAL_RUN_SECONDS if device != "meta" else META_RUN_SECONDS):
            torch.manual_seed(0)
            inputs = list(module.get_inputs())
            result["input_elems"], result["input_bytes"] = _stats(_tensors(inputs))
            stage = "get_init_inputs()"
            torch.manual_seed(0)
            init = list(module.get_init_inputs())
            stage = "Model(*get_init_inputs())"
            torch.manual_seed(0)
            model = module.Model(*init)
            state = list(model.state_dict().values()) if isinstance(model, torch.nn.Module) else []
            result["param_elems"], result["param_bytes"] = _stats(state)
            stage = "forward"
            with torch.no_grad():
                out = model(*inputs)
            result["output_elems"], result["output_bytes"] = _stats(_tensors(out))
    except BaseException as e:  # noqa: BLE001 - problem code may raise anything
        if isinstance(e, KeyboardInterrupt):
            raise
        result["error"] = f"{stage} on {device}: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    return result


def fits_cpu(m: dict) -> bool:
    return (m["input_elems"] is not None and m["input_elems"] <= SMALL_INPUT_ELEMS
            and m["output_elems"] <= SMALL_OUTPUT_ELEMS and m["param_elems"] <= SMALL_PARAM_ELEMS)


def class_globals(source: str, path: str) -> set:
    """Module-level names read by Model (and any function but get_inputs/get_init_inputs): a
    scaled variant must not change them, or ModelNew (which has its own copies) would differ."""
    names = set()

    def walk(table):
        for symbol in table.get_symbols():
            if symbol.is_global() and symbol.is_referenced():
                names.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    for child in symtable.symtable(source, path, "exec").get_children():
        if child.get_name() not in ("get_inputs", "get_init_inputs"):
            walk(child)
    return names


def _is_data(value) -> bool:
    return isinstance(value, (int, float, complex, str, bytes, tuple, list, dict, set, type(None)))


def _same(a, b) -> bool:
    try:
        return bool(a == b) if type(a) is type(b) else False
    except Exception:  # noqa: BLE001 - tensors, odd objects
        return a is b


def plan(problem: ProblemFile, runtime) -> dict:
    """Cases for one problem: {"cases": [...], "scales": (...), "notes": [...]} or {"skip": why}."""
    with open(problem.path, encoding="utf-8") as f:
        source = f.read()
    try:
        with _time_limit(REAL_RUN_SECONDS):
            base = runtime.load_problem(problem.path, 1, source)
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"skip": f"cannot import: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"}
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if not hasattr(base, n)]
    if missing:
        return {"skip": f"defines no {', '.join(missing)}"}
    full = measure(base)
    notes = []
    if full["error"] and full["input_elems"] is None:
        notes.append(f"sizes unknown ({full['error']})")
    elif full["error"]:
        notes.append(f"output size unknown ({full['error']})")

    def case(name, m, small, scale):
        return {"name": name, "small": small,
                "params": {"scale": scale, "input_bytes": m["input_bytes"],
                           "param_bytes": m["param_bytes"], "output_bytes": m["output_bytes"]}}

    if full["input_elems"] is not None and fits_cpu(full):
        return {"cases": [case("full", full, True, 1)], "scales": (1,), "notes": notes, "full": full}

    try:
        guarded = class_globals(source, problem.path)
    except SyntaxError:
        guarded = set()
    full_signature = None
    if full["input_elems"] is not None:
        try:
            full_signature = runtime.signature(runtime.meta_inputs(base))
        except Exception:  # noqa: BLE001
            pass
    best = None  # (input + output elements, factor, sizes) of the smallest usable variant
    for factor in FACTORS:
        try:
            module = runtime.load_problem(problem.path, factor, source)
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, KeyboardInterrupt):
                raise
            continue
        changed = [n for n in guarded if n in vars(base) and _is_data(vars(base)[n])
                   and not _same(vars(base)[n], vars(module).get(n))]
        if changed:
            notes.append(f"no CPU-sized variant: Model reads module-level {', '.join(sorted(changed))}")
            break
        m = measure(module)
        if m["input_elems"] is None:
            continue
        if m["error"] and m["input_elems"] <= SMALL_INPUT_ELEMS and m["param_elems"] <= SMALL_PARAM_ELEMS:
            m = measure(module, "cpu")
        if m["error"]:
            continue
        try:
            if full_signature is not None and runtime.signature(runtime.meta_inputs(module)) == full_signature:
                continue
        except Exception:  # noqa: BLE001 - the runtime could not tell this variant apart either
            continue
        size = m["input_elems"] + m["output_elems"]
        if best is None or size < best[0]:
            best = (size, factor, m)
        if fits_cpu(m):
            break
    full_size = (full["input_elems"] or 0) + full["output_elems"]
    if best is not None and (full["input_elems"] is None or best[0] < full_size):
        _, factor, m = best
        notes.append(f"CPU runs the case `scaled_div{factor}`: integer literals >= {runtime.MIN_SCALED} "
                     f"of the module-level sizes divided by {factor}"
                     + ("" if fits_cpu(m) else " (the smallest variant found; still above the CPU budget)"))
        return {"cases": [case("full", full, False, 1), case(f"scaled_div{factor}", m, True, factor)],
                "scales": (1, factor), "notes": notes, "full": full}
    notes.append("no CPU-sized variant found: the CPU runs the problem's own sizes")
    return {"cases": [case("full", full, True, 1)], "scales": (1,), "notes": notes, "full": full}


# ---------------------------------------------------------------------------------------------
# Task files


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
{kb_common.loader_snippet("_keval_kb_")}
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
{kb_common.loader_snippet("_keval_kb_")}
_keval_kb_problem = _keval_kb_load({runtime_path!r}).problem({problem_path!r}, {scales!r})

if isinstance(globals().get("ModelNew"), type):
    def {ENTRY}(*inputs):
        return _keval_kb_problem.forward_new(ModelNew, inputs)
'''


def golden_text(problem_path: str, runtime_path: str, scales: tuple) -> str:
    return f'''# Golden of a KernelBench task: the problem's own PyTorch Model as ModelNew (KernelBench's
# eager baseline). It launches no Triton kernel, so `keval validate` reports no_kernel for it;
# `python -m keval_runner.adapters kernelbench selfcheck` checks it against the reference instead.
{kb_common.loader_snippet("_keval_kb_golden_")}
ModelNew = _keval_kb_golden_load({runtime_path!r}).problem({problem_path!r}, {scales!r}).module(1).Model

{suffix_text(problem_path, runtime_path, scales)}'''


def split_select(text: str):
    """`1,2,any-code` -> (levels, require_kernel): `any-code` judges by KernelBench's own rule
    (any code that computes the right values passes, PyTorch included)."""
    parts = [p.strip() for p in (text or "").split(",") if p.strip()]
    any_code = "any-code" in parts
    levels = kb_common.parse_select(",".join(p for p in parts if p != "any-code"), "level") or None
    return levels, not any_code


def adapt_suite(source: str, out: str, levels=None, require_kernel: bool = True) -> dict:
    problems = list_problems(source, levels)
    if not problems:
        raise AdapterError(f"{problems_root(source)}: no problem files (level*/<id>_<Name>.py)")
    runtime = kb_common.runtime_text(RUNTIME_FILE)
    own = [os.path.abspath(__file__), os.path.join(os.path.dirname(os.path.abspath(__file__)), "kb_common.py"), RUNTIME_FILE]
    digest = kb_common.file_digest(own + [p.path for p in problems],
                                   f"{ADAPTER_VERSION}\n{levels}\n{require_kernel}\n{sys.version}\n")
    writer = kb_common.SuiteWriter(out, STAMP, digest)
    if writer.up_to_date:
        with open(os.path.join(writer.out, "ADAPTED.json"), encoding="utf-8") as f:
            return json.load(f)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # level 4 downloads models at import otherwise
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from . import kernelbench_runtime as runtime_module

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
                "name": problem.name, "version": ADAPTER_VERSION,
                "track": "ops" if problem.level == 1 else "real",
                "category": f"kernelbench_level{problem.level}",
                "difficulty": min(problem.level + 1, 5), "entry": ENTRY,
                "signature": "class ModelNew(nn.Module): ModelNew(*get_init_inputs())(*get_inputs()) -> Model's outputs",
                "instruction": instruction(problem, problem_source), "dtypes": ["float32"],
                "flops": "0", "bytes": "input_bytes + param_bytes + output_bytes",
                "require_kernel": require_kernel,
                "source": f"KernelBench {problem.relative}",
                "notes": "; ".join(notes) if notes else None,
            }
            toml = kb_common.task_toml(fields, {"float32": TOLERANCE}, planned["cases"])
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


# ---------------------------------------------------------------------------------------------
# Submissions: KernelBench generations, and single files holding Model and ModelNew


CODE_KEYS = ("code", "predict", "completion", "response", "generation", "output", "kernel_code",
             "custom_code", "model_new_code", "kernel", "src", "text")
LEVEL_KEYS = ("level", "level_id")
PROBLEM_KEYS = ("problem_id", "problem", "pid", "problem_idx", "task_id")
REFERENCE_KEYS = ("ref_arch_src", "reference", "ref_code", "original_code", "pytorch_code")
FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.S)


def extract_code(text: str) -> str:
    """A model's reply: the fenced block that defines ModelNew (else the first Python one)."""
    blocks = FENCE_RE.findall(text or "")
    if not blocks:
        return text or ""
    for lang, body in blocks:
        if "class ModelNew" in body:
            return body
    for lang, body in blocks:
        if lang.lower() in ("python", "py", ""):
            return body
    return blocks[0][1]


def _strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def problem_keys(text: str) -> dict:
    """AST fingerprints of a file's `class Model` (with and without docstrings) and of the rest
    (get_inputs, get_init_inputs and module-level assignments): formatting and comments do not
    count, so a reformatted copy of a problem still matches it."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {}
    keys = {}
    rest = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            keys["model"] = ast.dump(node, annotate_fields=False)
            keys["model_nodoc"] = ast.dump(_strip_docstrings(ast.parse(ast.unparse(node))).body[0], annotate_fields=False)
        elif isinstance(node, ast.FunctionDef) and node.name in ("get_inputs", "get_init_inputs"):
            rest.append(ast.dump(_strip_docstrings(ast.parse(ast.unparse(node))).body[0], annotate_fields=False))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            rest.append(ast.dump(node, annotate_fields=False))
    if rest:
        keys["rest"] = "\n".join(sorted(rest))
    return keys


class Matcher:
    def __init__(self, problems: list):
        self.problems = problems
        self.by_name = {p.name: p for p in problems}
        self.by_level_id = {(p.level, p.pid): p for p in problems}
        self.keys = {}
        for p in problems:
            with open(p.path, encoding="utf-8") as f:
                self.keys[p.name] = problem_keys(f.read())

    def by_text(self, text: str):
        """(task, how) for a text holding a copy of a problem's Model, or (None, why)."""
        mine = problem_keys(text)
        if "model" not in mine:
            return None, "no `class Model` in the code to match against the problems"
        for field in ("model", "model_nodoc"):
            hits = [n for n, k in self.keys.items() if k.get(field) == mine[field]]
            if len(hits) > 1 and "rest" in mine:
                narrowed = [n for n in hits if self.keys[n].get("rest") == mine["rest"]]
                hits = narrowed or hits
            if len(hits) == 1:
                return hits[0], "model source"
            if len(hits) > 1:
                return None, f"its Model matches {len(hits)} problems ({', '.join(hits[:4])})"
        return None, "its Model matches no problem of the selected levels"

    def match(self, item: dict, code: str, file_name: str = ""):
        task = item.get("task")
        if isinstance(task, str) and task in self.by_name:
            return task, "task"
        level = next((item[k] for k in LEVEL_KEYS if k in item), None)
        pid = next((item[k] for k in PROBLEM_KEYS if k in item), None)
        if level is None or pid is None:
            m = re.search(r"(?:level|^l)[_-]?(\d+)[_-](?:problem[_-]?)?(\d+)(?:_|\.|$)", file_name, re.I)
            if m and level is None and pid is None:
                level, pid = m.group(1), m.group(2)
        try:
            if level is not None and pid is not None:
                hit = self.by_level_id.get((int(str(level).lower().lstrip("level")), int(pid)))
                if hit:
                    return hit.name, "level and problem id"
        except (TypeError, ValueError):
            pass
        for key in REFERENCE_KEYS:
            if isinstance(item.get(key), str):
                found, how = self.by_text(item[key])
                if found:
                    return found, f"{key} text"
        found, why = self.by_text(code)
        if found:
            return found, why
        if isinstance(task, str) and task:
            return None, f"task {task!r} is not in the suite"
        return None, why


def find_checkout(submissions: str, suite: str = None) -> str:
    if suite:
        return suite
    folder = os.path.dirname(os.path.abspath(submissions))
    while True:
        try:
            problems_root(folder)
            return folder
        except AdapterError:
            pass
        parent = os.path.dirname(folder)
        if parent == folder:
            raise AdapterError(f"{submissions}: give the KernelBench checkout (--suite kernelbench:CHECKOUT)")
        folder = parent


def read_items(source: str) -> list:
    """[(origin, item dict or None, problem, file name)] from a .py, a .jsonl or a folder of them."""
    source = os.path.abspath(source)
    if os.path.isdir(source):
        files = []
        for folder, dirs, names in os.walk(source):
            dirs.sort()
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".py", ".jsonl"))]
        if not files:
            raise AdapterError(f"{source}: no .py or .jsonl files")
    elif os.path.isfile(source):
        files = [source]
    else:
        raise AdapterError(f"{source}: no such file or folder")
    items = []
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if path.endswith(".py"):
            items.append((stem, {"code": text}, None, os.path.basename(path)))
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            origin = f"{stem}:{number}"
            try:
                item = json.loads(line)
            except json.JSONDecodeError as e:
                items.append((origin, None, f"invalid JSON: {e.msg}", ""))
                continue
            if not isinstance(item, dict):
                items.append((origin, None, "not a JSON object", ""))
                continue
            items.append((origin, item, None, str(item.get("file", item.get("path", "")))))
    return items


def code_of(item: dict):
    for key in CODE_KEYS:
        if isinstance(item.get(key), str) and item[key].strip():
            return extract_code(item[key])
    for value in item.values():  # any text field that holds a ModelNew
        if isinstance(value, str) and "class ModelNew" in value:
            return extract_code(value)
    return None


def match_submissions(source: str, suite: str = None, levels=None) -> list:
    """One record per submission (a `.py` file, a non-blank JSONL line), in order: `id` (as
    keval's results name it), `task` (None when unmatched), `how` (or why not), `code`."""
    matcher = Matcher(list_problems(find_checkout(source, suite), levels))
    records = []
    for origin, item, problem, file_name in read_items(source):
        code = code_of(item) if item is not None else None
        ident = item.get("id") if item and isinstance(item.get("id"), (str, int)) else origin
        if item is None or code is None:
            task, how = None, problem or f"no code (looked for {', '.join(CODE_KEYS[:4])}, ...)"
        else:
            task, how = matcher.match(item, code, file_name)
        records.append({"id": str(ident), "task": task, "how": how, "code": code or "", "origin": origin})
    return records


def write_submissions(source: str, out: str, suite: str = None, levels=None) -> dict:
    lines, counts = [], {}
    for record in match_submissions(source, suite, levels):
        task, how = record["task"], record["how"]
        key = how if task else "unmatched"
        counts[key] = counts.get(key, 0) + 1
        if not task:
            print(f"kernelbench: {record['origin']}: {how}", file=sys.stderr)
        lines.append(json.dumps({"task": task or f"(no task: {how})", "code": record["code"], "id": record["id"]},
                                ensure_ascii=False))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return counts


# ---------------------------------------------------------------------------------------------
# Command line
