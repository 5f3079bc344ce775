"""TritonBench-G and TritonBench-T (github.com/thunlp/TritonBench) as keval tasks.

    python -m keval_runner.adapters tritonbench-g suite --source CHECKOUT --out DIR [--select any-code]
    python -m keval_runner.adapters tritonbench-g submissions --source FILE.jsonl --out OUT.jsonl [--suite CHECKOUT]
    python -m keval_runner.adapters tritonbench-g compare-judges --results RESULTS.jsonl --source FILE.jsonl --out REPORT.json

A task is one file of `data/TritonBench_{G,T}_v1/`: above the 146-`#` separator the reference
(Triton for G, PyTorch for T), below it the test, whose test function returns a dict of
results. keval runs the reference's test and the submission's test in separate processes under
the same seed and compares the returned values tensor by tensor (docs/peers.md has the mapping).
"""

import ast
import hashlib
import json
import os
import re
import shutil

from . import tritonbench_perf
from .source_edit import blank_statements

SEPARATOR = "#" * 146
ADAPTER_VERSION = 4  # bump when generated tasks change meaning (it is the tasks' `version`)
ENTRY = "tritonbench_test"
RUNTIME_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tritonbench_runtime.py")

G_PREFIX = ("You are a expert in writing Triton operators for efficient GPU programming. Use triton "
            "language write a kernel and wrapper according following instruction.")
T_PREFIX = ("You are an expert in Trion programming, capable of writing corresponding Triton kernels "
            "and wrapper functions based on functional descriptions and function parameters. Ensure "
            "that the wrapper function fully corresponds to the provided function information.")
T_SUFFIX = "After generation, verify if the Triton wrapper aligns with the provided func_inputs. If not, regenerate."

TOLERANCE = (1e-2, 1e-2)
TOLERANCE_REASON = (
    "TritonBench itself compares only stdout (no numeric tolerance); its tests return float32, "
    "float16 and bfloat16 tensors under one case, and T submissions' tl.dot runs TF32 against "
    "PyTorch's float32: 1e-2 absolute and relative, as KernelBench uses")

CATEGORIES = [  # first match on the file stem wins; a heuristic for report grouping only
    ("attention", r"attn|attention|flash|decode|retention|gla|lightning|rwkv|hgrn|delta|ssm|recurren"),
    ("quantization", r"quant|int8|int4|fp8|fp4|f8_|bf16"),
    ("matmul", r"matmul|gemm|gemv|bmm|mm_|_mm|^mm|linear|vecmat|matrix_vector|conv|lora|bgmv|sgmv|dot|addmv|mv$|einsum|tensordot"),
    ("normalization", r"norm"),
    ("softmax", r"softmax|logsumexp"),
    ("loss", r"entropy|loss|kldiv|_ce_|nll"),
    ("rope", r"rope|rotary|rbe|embedding"),
    ("scan", r"cumsum|cumprod|scan"),
    ("reduction", r"reduc|sum|mean|max|min|argmax|argmin|std|var|prod|topk|sort"),
    ("memory", r"copy|cache|transpose|index|select|gather|scatter|cat|fill|kv_"),
    ("random", r"dropout|sampling|multinomial|uniform|rand"),
    ("optimizer", r"adam|sgd|optim"),
]


class AdapterError(Exception):
    """A problem with the user's input: printed as the one-line reason."""


# ---------------------------------------------------------------------------------------------
# The checkout


class Checkout:
    """The files of one kind (G or T) in a TritonBench checkout."""

    def __init__(self, root: str, kind: str):
        self.root = os.path.abspath(root)
        self.kind = kind  # "G" or "T"
        self.data_dir = os.path.join(self.root, "data", f"TritonBench_{kind}_v1")
        if not os.path.isdir(self.data_dir):
            raise AdapterError(f"{self.root}: not a TritonBench checkout (no data/TritonBench_{kind}_v1/)")
        self.entries = self._dataset()  # file name -> dataset entry
        self.alpaca = {v: self._alpaca(v) for v in ("simp", "comp")}  # file name -> instruction
        self.perf_dir = os.path.join(self.root, "performance_metrics", f"perf_{kind}", "golden_metrics")

    def _load_json(self, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            return json.loads(text)
        except json.JSONDecodeError:  # JSON lines
            return [json.loads(line) for line in text.splitlines() if line.strip()]

    def _dataset(self) -> dict:
        for name in (f"TritonBench_{self.kind}_v1.json", f"TritonBench_{self.kind}_v1.jsonl"):
            path = os.path.join(self.root, "data", name)
            if os.path.exists(path):
                items = self._load_json(path)
                return {item["file"]: item for item in items if isinstance(item, dict) and "file" in item}
        return {}

    def _alpaca(self, variant: str) -> dict:
        """The alpaca instruction file's entries, aligned with the dataset JSON by position
        (TritonBench writes both in one order); kept only where the entry's own text confirms it."""
        path = os.path.join(self.root, "data", f"TritonBench_{self.kind}_{variant}_alpac_v1.json")
        if not os.path.exists(path) or not self.entries:
            return {}
        items = self._load_json(path)
        out = {}
        for item, (file, entry) in zip(items, self.entries.items()):
            instruction = item.get("instruction", "") if isinstance(item, dict) else ""
            key = (entry.get(f"{variant}_instru") if self.kind == "G" else entry.get("description")) or ""
            if key and normalise(key) in normalise(instruction):
                out[file] = instruction
        return out

    def files(self) -> list:
        return sorted(f for f in os.listdir(self.data_dir) if f.endswith(".py"))

    def instructions(self, file: str) -> list:
        """Every text TritonBench gave a model for this task (for exact matching)."""
        entry = self.entries.get(file, {})
        texts = [self.alpaca[v][file] for v in ("comp", "simp") if file in self.alpaca[v]]
        if self.kind == "G":
            texts += [f"{G_PREFIX}\n{entry[k]}" for k in ("comp_instru", "simp_instru") if entry.get(k)]
        else:
            texts += [t_instruction(entry, full) for full in (True, False) if entry.get("description")]
        return texts

    def instruction(self, file: str) -> str:
        texts = self.instructions(file)
        return texts[0] if texts else ""


def t_instruction(entry: dict, full: bool) -> str:
    parts = [T_PREFIX, f"Functional Description: {entry.get('description', '')}",
             f"Wrapper Entry Information: {entry.get('func_inputs', '')}"]
    if full:
        if entry.get("math"):
            parts.append(f"Math: {entry['math']}")
        if entry.get("other"):
            parts.append(f"other: {entry['other']}")
    parts.append(T_SUFFIX)
    return "\n".join(parts)


def normalise(text: str) -> str:
    return " ".join(str(text).split())


def task_name(file: str) -> str:
    stem = file[:-3] if file.endswith(".py") else file
    name = re.sub(r"[^A-Za-z0-9_]", "_", stem)
    return name if name and not name[0].isdigit() else "t_" + name


def category_of(stem: str) -> str:
    for name, pattern in CATEGORIES:
        if re.search(pattern, stem.lower()):
            return name
    return "elementwise"


# ---------------------------------------------------------------------------------------------
# One task file: reference part and test part


def split_file(text: str):
    """(reference part, test part) as TritonBench splits them (the last separator)."""
    at = text.rfind(SEPARATOR)
    if at < 0:
        return None
    return text[:at], text[at + len(SEPARATOR):]


def defined_names(tree: ast.Module) -> set:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _calls(node, name: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
               for n in ast.walk(node))


def prepare_test(test: str, reference_names: set, stem: str = ""):
    """(test source to exec, test function name, notes, its top-level imports as source).
    Raises AdapterError when unusable.

    Removed (blanked, so line numbers stay): the module-level call of the test function and
    prints (`result_gold = test_x()`, `print(...)`, `if __name__ == '__main__':` blocks), and
    top-level definitions that shadow the reference part's names (a test that redefines the
    operator would otherwise let any submission pass). `from <stem> import f` (a test importing its
    own file, which works when TritonBench runs the file as a script) becomes `f = f`."""
    try:
        tree = ast.parse(test)
    except SyntaxError as exc:
        raise AdapterError(f"the test part does not parse: {exc.msg} (line {exc.lineno})")
    functions = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    tests = [f for f in functions if f.startswith("test")]
    called = [f for f in tests if any(_calls(n, f) for n in tree.body
                                      if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))]
    chosen = called[0] if called else (tests[0] if len(tests) == 1 else None)
    if chosen is None:
        raise AdapterError("the test part has no test function" if not tests
                           else f"the test part has several test functions ({', '.join(tests)}) and calls none")
    drop, notes, rebind = [], [], {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and stem and node.module == stem and not node.level:
            drop.append(node)
            rebind[node.lineno] = "; ".join(f"{a.asname or a.name} = {a.name}" for a in node.names)
        elif isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            drop.append(node)
        elif isinstance(node, ast.If) and any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(node.test)):
            drop.append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and _calls(node, chosen):
            drop.append(node)
        elif not isinstance(node, (ast.Import, ast.ImportFrom)):
            shadowed = defined_names(ast.Module(body=[node], type_ignores=[])) & reference_names
            if shadowed:
                drop.append(node)
                notes.append("the test part redefined " + ", ".join(sorted(shadowed)) +
                             " (the reference's own names); those definitions are removed")
    source = blank_statements(test, drop, rebind)
    try:
        ast.parse(source)
    except SyntaxError as exc:  # a removed statement shared a line with a kept one
        raise AdapterError(f"the test part does not parse once its call is removed: {exc.msg}")
    imports = "\n".join(ast.unparse(n) for n in tree.body
                        if isinstance(n, (ast.Import, ast.ImportFrom)) and n not in drop)
    return source, chosen, notes, imports


# ---------------------------------------------------------------------------------------------
# Writing native task folders


def toml_string(text: str) -> str:
    out = json.dumps(str(text), ensure_ascii=False)
    return out.replace("\x7f", "\\u007f")


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {type(value).__name__}")


def runtime_text() -> str:
    """tritonbench_runtime.py without its module docstring (embedded into generated files)."""
    with open(RUNTIME_FILE, encoding="utf-8") as f:
        text = f.read()
    first = ast.parse(text).body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        text = "".join(text.splitlines(True)[first.end_lineno:])
    return text.strip() + "\n"


REFERENCE_TEMPLATE = '''"""TritonBench-{kind} task {name}: generated by keval's adapter (do not edit).

make_inputs returns (seed,) (or (seed, index, input) for a performance case);
reference(seed) runs the original reference part and its test under that seed and returns the
test's results flattened to tensors. golden.py is the reference part itself.
"""

{runtime}

import os as _keval_tb_os2
import sys as _keval_tb_sys
import types as _keval_tb_types

_KEVAL_TB_DIR = _keval_tb_os2.path.dirname(_keval_tb_os2.path.abspath(__file__))
_KEVAL_TB_REFERENCE_SOURCE = {reference_source}
_KEVAL_TB_TEST_SOURCE = {test_source}
_KEVAL_TB_TEST_NAME = {test_name}
_KEVAL_TB_TEST_IMPORTS = {test_imports}
_KEVAL_TB_PERF_SOURCE = {perf_source}
_KEVAL_TB_PERF_IMPORTS = {perf_imports}
_keval_tb_namespaces = {{}}


def _keval_tb_module(name, base=None):
    module = _keval_tb_types.ModuleType(name)
    if base is not None:
        module.__dict__.update(base)
    module.__dict__["__name__"] = name
    _keval_tb_sys.modules[name] = module
    return module.__dict__


def _keval_tb_namespace(which):
    """The namespaces "test" and "perf": the test part or perf file over a snapshot of the
    reference part's module; "inputs": the perf file alone (make_inputs also runs in the candidate's process, where the
    reference part has no business)."""
    if which == "inputs" and which not in _keval_tb_namespaces:
        namespace = _keval_tb_module("keval_tritonbench_inputs")
        _keval_tb_perf_load(_KEVAL_TB_PERF_SOURCE, {{}}, _keval_tb_os2.path.join(_KEVAL_TB_DIR, "tritonbench_perf.py"), namespace)
        _keval_tb_namespaces[which] = namespace
    if which == "inputs":
        return _keval_tb_namespaces[which]
    if "reference" not in _keval_tb_namespaces:
        namespace = _keval_tb_module("keval_tritonbench_reference")
        namespace["__file__"] = _keval_tb_os2.path.join(_KEVAL_TB_DIR, "golden.py")
        with _keval_tb_test_context(fill_empty=True):
            _keval_tb_exec(_KEVAL_TB_REFERENCE_SOURCE, namespace["__file__"], namespace)
        _keval_tb_share_imports(_KEVAL_TB_TEST_IMPORTS, namespace)
        _keval_tb_namespaces["reference"] = namespace
    if which not in _keval_tb_namespaces:
        namespace = _keval_tb_module("keval_tritonbench_" + which, _keval_tb_namespaces["reference"])
        if which == "test":
            _keval_tb_exec(_KEVAL_TB_TEST_SOURCE, _keval_tb_os2.path.join(_KEVAL_TB_DIR, "tritonbench_test.py"), namespace)
        else:
            _keval_tb_perf_load(_KEVAL_TB_PERF_SOURCE, _KEVAL_TB_PERF_IMPORTS,
                                _keval_tb_os2.path.join(_KEVAL_TB_DIR, "tritonbench_perf.py"), namespace)
        _keval_tb_namespaces[which] = namespace
    return _keval_tb_namespaces[which]


def make_inputs(case, dtype, seed):
    if "bench" in case:
        return _keval_tb_perf_inputs(_keval_tb_namespace("inputs"), int(case["bench"]), int(seed))
    return (int(seed),)


def reference(seed, *bench):
    if bench:
        return _keval_tb_perf_call(_keval_tb_namespace("perf"), seed, bench[1])
    return _keval_tb_call_test(_keval_tb_namespace("test"), _KEVAL_TB_TEST_NAME, seed)
'''

SUFFIX_TEMPLATE = '''{runtime}

import sys as _keval_tb_sys
import types as _keval_tb_types

_KEVAL_TB_TEST_SOURCE = {test_source}
_KEVAL_TB_TEST_FILE = {test_file}
_KEVAL_TB_TEST_NAME = {test_name}
_KEVAL_TB_TEST_IMPORTS = {test_imports}
_KEVAL_TB_PERF_SOURCE = {perf_source}
_KEVAL_TB_PERF_IMPORTS = {perf_imports}
_KEVAL_TB_PERF_FILE = {perf_file}
_keval_tb_namespaces = {{}}


def _keval_tb_namespace(which):
    """The test (or perf) code's namespace: a snapshot of this module's names, so the test sees
    the submission's functions but cannot replace them, and its own code is not the submission's."""
    if which not in _keval_tb_namespaces:
        _keval_tb_share_imports(_KEVAL_TB_TEST_IMPORTS, globals())
        name = "keval_tritonbench_" + which
        module = _keval_tb_types.ModuleType(name)
        module.__dict__.update(globals())
        module.__dict__["__name__"] = name
        _keval_tb_sys.modules[name] = module
        if which == "test":
            _keval_tb_exec(_KEVAL_TB_TEST_SOURCE, _KEVAL_TB_TEST_FILE, module.__dict__)
        else:
            _keval_tb_perf_load(_KEVAL_TB_PERF_SOURCE, _KEVAL_TB_PERF_IMPORTS, _KEVAL_TB_PERF_FILE, module.__dict__)
        _keval_tb_namespaces[which] = module.__dict__
    return _keval_tb_namespaces[which]


def {entry}(seed, *bench):
    """TritonBench's test for this task, run against this module's functions; its results as tensors."""
    if bench:
        return _keval_tb_perf_call(_keval_tb_namespace("perf"), seed, bench[1])
    return _keval_tb_call_test(_keval_tb_namespace("test"), _KEVAL_TB_TEST_NAME, seed)
'''


class TaskSpec:
    """Everything one generated task folder needs."""

    def __init__(self, checkout: Checkout, file: str, options: set):
        self.file = file
        self.name = task_name(file)
        self.kind = checkout.kind
        path = os.path.join(checkout.data_dir, file)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        parts = split_file(text)
        if parts is None:
            raise AdapterError("no 146-'#' separator between reference and test")
        self.reference, test = parts
        try:
            reference_tree = ast.parse(self.reference)
        except SyntaxError as exc:
            raise AdapterError(f"the reference part does not parse: {exc.msg} (line {exc.lineno})")
        self.test, self.test_name, self.notes, self.test_imports = prepare_test(test, defined_names(reference_tree), file[:-3])
        entry = checkout.entries.get(file, {})
        self.instruction = checkout.instruction(file)
        if not self.instruction:
            raise AdapterError("no instruction: the file has no entry in the dataset JSON")
        try:
            self.difficulty = min(5, max(1, int(entry.get("difficulty", 3))))
        except (TypeError, ValueError):
            self.difficulty = 3
        self.category = category_of(self.name)
        self.track = "real" if self.kind == "G" else "ops"
        self.require_kernel = "any-code" not in options
        self.source = f"TritonBench-{self.kind} data/TritonBench_{self.kind}_v1/{file}"
        if entry.get("repo"):
            self.source += f" (from {entry['repo']})"
        self.perf = tritonbench_perf.PerfSpec.load(checkout.perf_dir, file[:-3])  # sized later
        if self.perf and self.kind == "T":
            # PyTorch runs on meta tensors: the dry run also sizes each input's outputs
            self.perf.reference = self.reference

    def cases(self) -> list:
        cases = [{"name": "tritonbench_test", "small": True, "params": {"flops_n": 0, "bytes_n": 0}}]
        if self.perf and self.perf.cases:
            cases += self.perf.cases
        return cases

    def task_toml(self) -> str:
        notes = ["TritonBench's own test (below the separator) is the case: reference and submission "
                 "run it under the same seed and its returned values are compared tensor by tensor."]
        if self.kind == "T" and self.require_kernel:
            notes.append("golden.py is TritonBench's PyTorch reference: `keval validate` shows it as "
                         "no_kernel; validate with `tritonbench-t:PATH:any-code`.")
        notes += self.notes
        if self.perf:
            notes += self.perf.notes
        if not (self.perf and self.perf.cases):
            notes.append("no performance case: the test case is what is timed (0 bytes/FLOPs).")
        else:
            notes.append("inplace = true: performance inputs include output buffers the operator "
                         "writes (the test case has no tensor inputs).")
        notes.append("check_reference_defined = true: the reference runs twice, free GPU memory and "
                     "guard bands around its inputs holding finite bytes, then NaN bytes; output elements "
                     "that change (left unwritten by the reference's kernels, or computed from memory they "
                     "never initialised) are not judged, and each case counts them (reference_undefined).")
        fields = [
            ("name", self.name), ("version", ADAPTER_VERSION), ("track", self.track),
            ("category", self.category), ("difficulty", self.difficulty), ("entry", ENTRY),
            ("signature", f"{ENTRY}(seed: int) -> list[torch.Tensor]"),
            ("instruction", self.instruction), ("dtypes", ["float32"]),
            ("flops", "flops_n"), ("bytes", "bytes_n"), ("inplace", True),
            ("require_kernel", self.require_kernel), ("check_reference_defined", True),
            ("source", self.source), ("notes", " ".join(notes)),
        ]
        lines = [f"{key} = {toml_value(value)}" for key, value in fields]
        lines.append("shared_inputs = false  # TritonBench's tests build on CUDA: never in the zygote")
        atol, rtol = TOLERANCE
        lines += ["", "[tolerance.float32]", f"atol = {atol!r}", f"rtol = {rtol!r}",
                  f"reason = {toml_string(TOLERANCE_REASON)}"]
        for case in self.cases():
            lines += ["", "[[cases]]"] + [f"{k} = {toml_value(v)}" for k, v in case.items()]
        return "\n".join(lines) + "\n"

    def write(self, folder: str, runtime: str, final_folder: str) -> None:
        """Writes into folder; final_folder is where it will live (file names in tracebacks)."""
        os.makedirs(folder, exist_ok=True)
        test_file = os.path.join(final_folder, "tritonbench_test.py")
        perf_source = self.perf.source if self.perf else ""
        perf_imports = self.perf.imports if self.perf else {}
        perf_file = os.path.join(final_folder, "tritonbench_perf.py")
        files = {
            "task.toml": self.task_toml(),
            "golden.py": self.reference,
            "tritonbench_test.py": self.test,
            "reference.py": REFERENCE_TEMPLATE.format(
                kind=self.kind, name=self.name, runtime=runtime,
                reference_source=repr(self.reference), test_source=repr(self.test),
                test_name=repr(self.test_name), test_imports=repr(self.test_imports),
                perf_source=repr(perf_source), perf_imports=repr(perf_imports)),
            "submission_suffix.py": SUFFIX_TEMPLATE.format(
                runtime=runtime, test_source=repr(self.test), test_file=repr(test_file),
                test_name=repr(self.test_name), test_imports=repr(self.test_imports),
                perf_source=repr(perf_source), perf_imports=repr(perf_imports),
                perf_file=repr(perf_file), entry=ENTRY),
        }
        if self.perf:
            files["tritonbench_perf.py"] = perf_source
        for name, text in files.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)


def adapt_suite(source: str, out: str, kind: str, options: set) -> dict:
    checkout = Checkout(source, kind)
    runtime = runtime_text()
    stamp = hashlib.sha256()
    stamp.update(f"{ADAPTER_VERSION}\n{kind}\n{sorted(options)}\n{runtime}".encode())
    for own in (__file__, tritonbench_perf.__file__):  # any change of the adapter's code regenerates
        with open(own, "rb") as f:
            stamp.update(f.read())
    for directory in (checkout.data_dir, checkout.perf_dir):
        for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            with open(os.path.join(directory, name), "rb") as f:
                stamp.update(name.encode() + b"\0" + f.read())
    for name in os.listdir(os.path.join(checkout.root, "data")):
        if name.endswith((".json", ".jsonl")) and f"_{kind}_" in name:
            stamp.update(name.encode() + b"\0" + str(os.path.getsize(os.path.join(checkout.root, "data", name))).encode())
    digest = stamp.hexdigest()
    stamp_path = os.path.join(out, ".tritonbench-stamp")
    if os.path.exists(stamp_path):
        with open(stamp_path) as f:
            previous = json.load(f)
        if previous.get("digest") == digest:
            return previous
    parent = os.path.dirname(os.path.abspath(out)) or "."
    os.makedirs(parent, exist_ok=True)
    building = f"{out}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    os.makedirs(building)
    specs, skipped = [], {}
    for file in checkout.files():
        try:
            specs.append(TaskSpec(checkout, file, options))
        except AdapterError as exc:
            skipped[file] = str(exc)
    sizing = tritonbench_perf.size_all({s.name: s.perf for s in specs if s.perf})
    written = []
    for spec in specs:
        if spec.perf:
            spec.perf.choose_cases(sizing.get(spec.name, {"error": "not sized"}))
        spec.write(os.path.join(building, spec.name), runtime, os.path.join(os.path.abspath(out), spec.name))
        written.append(spec.name)
    if not written:
        shutil.rmtree(building, ignore_errors=True)
        raise AdapterError(f"{checkout.data_dir}: no usable task file")
    summary = {"digest": digest, "kind": kind, "tasks": len(written), "skipped": skipped}
    with open(os.path.join(building, ".tritonbench-stamp"), "w") as f:
        json.dump(summary, f, indent=1)
    old = f"{out}.old-{os.getpid()}"
    if os.path.exists(out):
        os.rename(out, old)
    os.rename(building, out)
    shutil.rmtree(old, ignore_errors=True)
    return summary


# ---------------------------------------------------------------------------------------------
# Submissions: TritonBench's LLM_generated/*.jsonl


CHAT_WRAPPERS = [
    re.compile(r"^<\|im_start\|>system\n.*?<\|im_end\|>\s*<\|im_start\|>user\n", re.S),
    re.compile(r"<\|im_end\|>\s*<\|im_start\|>assistant\s*$"),
    re.compile(r"^<\|user\|>\s*"),
    re.compile(r"(</s>)?\s*<\|assistant\|>\s*$"),
    re.compile(r"^Human:\s*"),
    re.compile(r"\n\s*Assistant:\s*$"),
]


def prompt_text(text: str) -> str:
    """The TritonBench instruction inside a model's prompt: chat-template markers and a RAG
    prompt's retrieved documents ("Query: ...\\n\\nDocument 1: ...") removed."""
    text = str(text).strip()
    for pattern in CHAT_WRAPPERS:
        text = pattern.sub("", text).strip()
    if text.startswith("Query:"):
        text = text[len("Query:"):]
        cut = text.find("\nDocument 1:")
        if cut >= 0:
            text = text[:cut]
    return text.strip()


def instruction_key(text: str) -> str:
    # the T prompts exist with and without TritonBench's "Trion" typo
    return normalise(prompt_text(text)).replace("Trion programming", "Triton programming")


def t_description(text: str):
    found = re.search(r"Functional Description:(.*?)Wrapper Entry Information:", prompt_text(text), re.S)
    return normalise(found.group(1)) if found else None


class Matcher:
    """Maps a submission line to its task by exact (whitespace-normalised) text, never substrings."""

    def __init__(self, checkout: Checkout):
        self.kind = checkout.kind
        self.by_instruction, self.by_label, self.by_description, self.by_file = {}, {}, {}, {}
        for file in checkout.files():
            name = task_name(file)
            self.by_file[file[:-3]] = name
            for text in checkout.instructions(file):
                self._add(self.by_instruction, instruction_key(text), name)
            entry = checkout.entries.get(file, {})
            if entry.get("output"):
                self._add(self.by_label, normalise(entry["output"]), name)
            if entry.get("description"):
                self._add(self.by_description, normalise(entry["description"]), name)

    @staticmethod
    def _add(index, key, name):
        if key:
            index.setdefault(key, set()).add(name)

    @staticmethod
    def _one(index, key):
        found = index.get(key) if key else None
        return next(iter(found)) if found and len(found) == 1 else None

    def match(self, item: dict):
        """(task name or None, how it was matched)."""
        for key in ("task", "file"):
            if isinstance(item.get(key), str) and item[key].strip():
                stem = os.path.basename(item[key].strip().replace("\\", "/"))
                stem = stem[:-3] if stem.endswith(".py") else stem
                if stem in self.by_file:
                    return self.by_file[stem], key
        instruction = item.get("instruction", item.get("prompt"))
        if isinstance(instruction, str):
            found = self._one(self.by_instruction, instruction_key(instruction))
            if found:
                return found, "instruction"
            found = self._one(self.by_description, t_description(instruction))
            if found:
                return found, "description"
        if isinstance(item.get("label"), str):
            found = self._one(self.by_label, normalise(item["label"]))
            if found:
                return found, "label"
        return None, None


def find_checkout(submissions: str, suite: str = None) -> str:
    if suite:
        return suite
    folder = os.path.dirname(os.path.abspath(submissions))
    while True:
        if os.path.isdir(os.path.join(folder, "data")) and any(
                os.path.isdir(os.path.join(folder, "data", f"TritonBench_{k}_v1")) for k in "GT"):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            raise AdapterError(f"{submissions}: no TritonBench checkout above it; give --suite tritonbench-g:CHECKOUT")
        folder = parent


def read_lines(path: str) -> list:
    """[(line number, parsed object or None, problem)] for every non-blank line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                out.append((number, item if isinstance(item, dict) else None,
                            None if isinstance(item, dict) else "not a JSON object"))
            except json.JSONDecodeError as exc:
                out.append((number, None, f"invalid JSON: {exc.msg}"))
    return out


def match_submissions(source: str, kind: str, suite: str = None) -> list:
    """One record per non-blank line: number, id, task (or None), how, reason, item."""
    if not os.path.isfile(source):
        raise AdapterError(f"{source}: no such submissions file")
    checkout = Checkout(find_checkout(source, suite), kind)
    matcher = Matcher(checkout)
    other = None
    stem = os.path.splitext(os.path.basename(source))[0]
    records = []
    for number, item, problem in read_lines(source):
        record = {"line": number, "id": f"{stem}:{number}", "task": None, "how": None, "item": item}
        if item is None:
            record["reason"] = problem
        else:
            record["task"], record["how"] = matcher.match(item)
            if record["task"] is None:
                reason = f"its instruction matches no tritonbench-{kind.lower()} task exactly"
                if other is None:
                    other_kind = "T" if kind == "G" else "G"
                    try:
                        other = Matcher(Checkout(checkout.root, other_kind))
                    except AdapterError:
                        other = False
                if other and other.match(item)[0]:
                    reason += f" (it is tritonbench-{other.kind.lower()} task {other.match(item)[0]})"
                record["reason"] = reason
        records.append(record)
    return records


def write_submissions(source: str, out: str, kind: str, suite: str = None) -> dict:
    records = match_submissions(source, kind, suite)
    lines, counts = [], {}
    last = 0
    for record in records:
        lines += [""] * (record["line"] - last - 1)  # keep line numbers: keval's origin is FILE:LINE
        last = record["line"]
        item = record["item"] or {}
        code = item.get("predict", item.get("code"))
        if record["task"]:
            native = {"task": record["task"], "code": code if isinstance(code, str) else "", "id": record["id"]}
        else:
            # keval reports an unknown task as bad_submission with this text as the task's name
            native = {"task": f"(no task: {record['reason']})", "code": code if isinstance(code, str) else "",
                      "id": record["id"]}
        counts[record["how"] or "unmatched"] = counts.get(record["how"] or "unmatched", 0) + 1
        lines.append(json.dumps(native, ensure_ascii=False))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return counts
