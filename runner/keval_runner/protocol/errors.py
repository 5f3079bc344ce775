"""Turns an exception raised by candidate or task code into the fields of an `error` message.

`error_kind` is the exception's class name, except that every Triton compilation error
(triton.compiler.errors.CompilationError and its subclasses, also when it is the cause
of the raised exception) is reported as "CompilationError" so the controller needs one
name for compile_error; `error_class` always holds the raised class's own name.
`line` is the candidate file's line where the error arose, when it can be known.
`out_of_memory` (present only when true) says the device's allocator or driver refused memory
(out_of_memory_seen): the controller retries a job alone on it, so only the warden's own
exceptions may carry it to the controller (candidate_job.guest_error drops the guest's).
"""

import os
import traceback

COMPILATION_ERROR = "CompilationError"


class OutputWriteFailed(Exception):
    """keval could not write a call's outputs into its own work folder (output_files.py): the
    machine's fault. The child reports it as error kind "OutputWriteFailed", which the
    controller leaves unjudged (judge/harness_fault.h)."""


def _compilation_error_type():
    try:
        from triton.compiler.errors import CompilationError
        return CompilationError
    except Exception:  # triton layout changed: fall back to name matching
        return None


def _exception_chain(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _raised_in_triton_language(exc) -> bool:
    """True when exc was raised by triton.language itself (a semantic check such as a
    non-power-of-2 arange or a failed static_assert): what the GPU compiler rejects."""
    tb = exc.__traceback__
    last, function = None, ""
    while tb is not None:
        last, function = tb.tb_frame.f_code.co_filename, tb.tb_frame.f_code.co_name
        tb = tb.tb_next
    if not last:
        return False
    # the interpreter's own stand-in for tl.static_assert raises from the runtime package
    return f"triton{os.sep}language{os.sep}" in last or function.endswith("static_assert")


def find_compilation_error(exc):
    """The first CompilationError in exc's cause/context chain, or None. Under the CPU
    interpreter the same faults arrive as an InterpreterError whose cause was raised by
    triton.language: that cause counts as a compilation error too, as it would on a GPU."""
    compile_type = _compilation_error_type()
    for item in _exception_chain(exc):
        if compile_type is not None and isinstance(item, compile_type):
            return item
        if any(k.__name__ == COMPILATION_ERROR for k in type(item).__mro__):
            return item
        if type(item).__name__ == "InterpreterError" and item.__cause__ is not None \
                and _raised_in_triton_language(item.__cause__):
            return item.__cause__
    return None


def _same_file(a, b) -> bool:
    if not a or not b:
        return False
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except Exception:
        return a == b


def deepest_line_in(exc, filename):
    """Line of the innermost frame in filename, preferring the innermost exception of the
    cause chain (a kernel fault under the interpreter is wrapped: the cause holds the
    kernel's own line, the wrapper only the launch site)."""
    if not filename:
        return None
    found = None
    for item in _exception_chain(exc):
        for frame in traceback.extract_tb(item.__traceback__):
            if _same_file(frame.filename, filename):
                found = frame.lineno
    return found


def _unwrap_jit(obj):
    """Follows Autotuner/Heuristics `.fn` links down to the object holding the kernel source."""
    for _ in range(8):
        if hasattr(obj, "raw_src") and hasattr(obj, "starting_line_number"):
            return obj
        obj = getattr(obj, "fn", None)
        if obj is None:
            return None
    return None


def compilation_error_line(error, module):
    """File line of a CompilationError: its node line is relative to the kernel's `def`.

    Triton gives (src, node) where node.lineno counts from the `def` line of the jitted
    function whose source is src; find that function among the module's globals."""
    src = getattr(error, "src", None)
    node_line = getattr(getattr(error, "node", None), "lineno", None)
    if module is None or src is None or node_line is None:
        return None
    for value in list(vars(module).values()):
        jit = _unwrap_jit(value)
        if jit is None or getattr(jit, "src", None) != src:
            continue
        def_line = jit.starting_line_number
        for offset, text in enumerate(jit.raw_src):  # skip decorator lines
            if text.strip().startswith("def "):
                def_line += offset
                break
        return def_line + node_line - 1
    return None


# What torch and the CUDA runtime raise when the device refused an allocation: torch's
# allocator, a context that could not be made ("CUDA error: out of memory" at set_device), a
# cuBLAS handle that could not be made (seen on the H200 with too many slots for a suite).
_OUT_OF_MEMORY_SIGNS = ("CUDA out of memory", "CUDA error: out of memory", "CUDA_ERROR_OUT_OF_MEMORY",
                        "cudaErrorMemoryAllocation", "CUBLAS_STATUS_ALLOC_FAILED")


def out_of_memory_seen(exc) -> bool:
    """Whether exc (or what caused it) is the device refusing memory: torch's OutOfMemoryError,
    or a RuntimeError of torch or the runtime naming it. Meant for this process's own
    exceptions: text the guest sent is never read this way."""
    for item in _exception_chain(exc):
        if any(k.__name__ == "OutOfMemoryError" for k in type(item).__mro__):
            return True
        if isinstance(item, RuntimeError) and any(sign in str(item) for sign in _OUT_OF_MEMORY_SIGNS):
            return True
    return False


def describe(exc, candidate_file=None, module=None) -> dict:
    """error_kind, error_class, message and line for an exception (and out_of_memory: true
    where out_of_memory_seen)."""
    error_class = type(exc).__name__
    compile_error = find_compilation_error(exc)
    error_kind = COMPILATION_ERROR if compile_error is not None else error_class
    message = "".join(traceback.format_exception_only(type(exc), exc)).strip() or error_class
    if compile_error is not None and compile_error is not exc:
        message += "\ncaused by " + "".join(
            traceback.format_exception_only(type(compile_error), compile_error)).strip()

    line = None
    if isinstance(exc, SyntaxError) and (exc.filename is None or _same_file(exc.filename, candidate_file)):
        line = exc.lineno
    if line is None and compile_error is not None:
        try:
            line = compilation_error_line(compile_error, module)
        except Exception:
            line = None
    if line is None:
        line = deepest_line_in(exc, candidate_file)
    fields = {"error_kind": error_kind, "error_class": error_class, "message": message, "line": line}
    if out_of_memory_seen(exc):
        fields["out_of_memory"] = True
    return fields


class DeviceError(Exception):
    """The job cannot go on on its device (CUDA missing, or the context lost after a fault).

    The child reports it as an `error` with stage "device" and exits with code 4, without
    `done`: the remaining facts cannot be produced. Raised only from what this process saw
    itself (or, before `ready`, what the guest saw while only keval's code ran in it)."""

    def __init__(self, kind: str, message: str, out_of_memory: bool = False):
        super().__init__(message)
        self.kind = kind
        self.out_of_memory = out_of_memory
