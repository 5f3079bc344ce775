"""TritonBench task files as native keval task folders (`suite`): task.toml, golden.py (the
reference part), the test part, reference.py and the submission glue, and performance cases
from the perf files."""

import ast
import os

from ..common.errors import AdapterError
from ..common.peer_file import split_file
from ..common.suite_writer import SuiteWriter, adapter_sources, file_digest
from ..common.task_toml import task_toml
from .checkout import Checkout, category_of, task_name
from .perf import PerfSpec, size_all
from .templates import REFERENCE_TEMPLATE, SUFFIX_TEMPLATE, runtime_text
from .test_part import defined_names, prepare_test

PEER = "tritonbench"  # this package: the tasks' `adapter`, whose code their evaluation keys follow
ADAPTER_VERSION = 4  # bump when generated tasks change meaning (it is the tasks' `version`)
ENTRY = "tritonbench_test"
STAMP = ".tritonbench-stamp"

TOLERANCE = (1e-2, 1e-2)
TOLERANCE_REASON = (
    "TritonBench itself compares only stdout (no numeric tolerance); its tests return float32, "
    "float16 and bfloat16 tensors under one case, and T submissions' tl.dot runs TF32 against "
    "PyTorch's float32: 1e-2 absolute and relative, as KernelBench uses")


class TaskSpec:
    """Everything one generated task folder needs."""

    def __init__(self, checkout: Checkout, file: str, options: set):
        self.file = file
        self.name = task_name(file)
        self.kind = checkout.kind
        path = os.path.join(checkout.data_dir, file)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.reference, test = split_file(text, last=True)  # TritonBench splits at the last one
        if test is None:
            raise AdapterError("no 146-'#' separator between reference and test")
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
        self.perf = PerfSpec.load(checkout.perf_dir, file[:-3])  # sized later
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
        fields = {
            "name": self.name, "version": ADAPTER_VERSION, "adapter": PEER, "track": self.track,
            "category": self.category, "difficulty": self.difficulty, "entry": ENTRY,
            "signature": f"{ENTRY}(seed: int) -> list[torch.Tensor]",
            "instruction": self.instruction, "dtypes": ["float32"],
            "flops": "flops_n", "bytes": "bytes_n", "inplace": True,
            "require_kernel": self.require_kernel, "check_reference_defined": True,
            "shared_inputs": False,  # TritonBench's tests build on CUDA: never in the zygote
            "source": self.source, "notes": " ".join(notes),
        }
        return task_toml(fields, {"float32": (*TOLERANCE, TOLERANCE_REASON)}, self.cases())

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
    # any change of the adapter's code or of the checkout's task, perf and dataset files regenerates
    inputs = [os.path.join(directory, name) for directory in (checkout.data_dir, checkout.perf_dir)
              for name in (sorted(os.listdir(directory)) if os.path.isdir(directory) else [])]
    sizes = "".join(f"{name}\0{os.path.getsize(os.path.join(checkout.root, 'data', name))}\n"
                    for name in sorted(os.listdir(os.path.join(checkout.root, "data")))
                    if name.endswith((".json", ".jsonl")) and f"_{kind}_" in name)
    digest = file_digest(adapter_sources(PEER) + inputs,
                         f"{ADAPTER_VERSION}\n{kind}\n{sorted(options)}\n{sizes}")
    writer = SuiteWriter(out, STAMP, digest)
    if writer.up_to_date:
        return writer.report()
    writer.begin()
    try:
        specs, skipped = [], {}
        for file in checkout.files():
            try:
                specs.append(TaskSpec(checkout, file, options))
            except AdapterError as exc:
                skipped[file] = str(exc)
        sizing = size_all({s.name: s.perf for s in specs if s.perf})
        written = []
        for spec in specs:
            if spec.perf:
                spec.perf.choose_cases(sizing.get(spec.name, {"error": "not sized"}))
            spec.write(writer.task_dir(spec.name), runtime, writer.final_dir(spec.name))
            written.append(spec.name)
        if not written:
            raise AdapterError(f"{checkout.data_dir}: no usable task file")
        report = {"kind": kind, "tasks": written, "skipped": skipped}
        writer.commit(report)
    except BaseException:
        writer.abort()
        raise
    return report
