"""Records which Triton kernels are launched during a call.

Every launch, whatever wraps the kernel (kernel[grid](...), triton.autotune's Autotuner,
triton.heuristics' Heuristics), ends in `run(*args, grid=..., warmup=False, ...)` on the
object that holds the kernel's Python function: triton.runtime.jit.JITFunction on a GPU,
triton.runtime.interpreter.InterpretedFunction under TRITON_INTERPRET=1. Both classes get
a wrapped `run` (class level, so kernels defined later are covered too), and a plain
`__getitem__` that always goes through `run` (some Triton builds return a native launcher
for cached kernels that would bypass a Python-level hook). The layout is the same in
Triton 3.6 and 3.9; lookups are guarded so another layout degrades to "nothing recorded".
"""

import contextlib

from ..device import device_gate
from .kernel_identity import kernel_source, source_key

_active = None  # list of (name, module, source key) while a tracked call runs, else None
_timer = None  # while a timed tracked call runs: brackets each launch (kernel_profile.LaunchEvents)
_suppressed = None  # module whose kernels are not launched (the ablation call), else None


def _launch_classes() -> list:
    classes = []
    try:
        from triton.runtime.jit import JITFunction
        classes.append(JITFunction)
    except Exception:
        pass
    try:
        from triton.runtime.interpreter import InterpretedFunction
        classes.append(InterpretedFunction)
    except Exception:
        pass
    return classes


def kernel_identity(kernel) -> tuple:
    """(kernel name, module of the kernel's Python function)."""
    fn = getattr(kernel, "fn", None)
    name = getattr(fn, "__name__", None) or getattr(kernel, "__name__", None) or type(kernel).__name__
    module = getattr(fn, "__module__", None) or getattr(kernel, "module", None) or ""
    return str(name), str(module)


def _record(kernel) -> None:
    if _active is None:
        return
    try:
        identity = kernel_identity(kernel) + (source_key(kernel_source(kernel)),)
    except Exception:
        identity = ("<unknown>", "", "")
    if identity not in _active:
        _active.append(identity)


def _suppress(kernel) -> bool:
    if _suppressed is None:
        return False
    try:
        return kernel_identity(kernel)[1] == _suppressed
    except Exception:
        return False


def _wrap_run(original_run):
    def run(self, *args, **kwargs):
        if kwargs.get("warmup", False):
            try:
                return original_run(self, *args, **kwargs)
            finally:
                device_gate.end_idle()
        _record(self)
        if _suppress(self):
            return None
        timer = _timer
        if timer is None:
            try:
                return original_run(self, *args, **kwargs)
            finally:
                device_gate.end_idle()  # a compile that raised never reached its end hook
        token = timer.begin()
        try:
            return original_run(self, *args, **kwargs)
        finally:
            timer.end(kernel_identity(self), token)

    run.__wrapped__ = original_run
    run._keval_tracking = True
    return run


def _getitem(self, grid):
    return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


def install() -> list:
    """Patches the launch classes once per process; returns the names of patched classes."""
    patched = []
    for cls in _launch_classes():
        original = getattr(cls, "run", None)
        if original is None:
            continue
        if not getattr(original, "_keval_tracking", False):
            cls.run = _wrap_run(original)
            cls.__getitem__ = _getitem
        patched.append(cls.__name__)
    return patched


@contextlib.contextmanager
def tracking(timer=None, suppress=None):
    """Collects (name, module, source key) of each distinct kernel launched inside the block;
    with a timer, also brackets each launch with timer.begin() / timer.end((name, module),
    token). With `suppress`, kernels of that module are recorded but not launched."""
    global _active, _timer, _suppressed
    previous, previous_timer, previous_suppressed = _active, _timer, _suppressed
    launched = []
    _active, _timer, _suppressed = launched, timer, suppress
    try:
        yield launched
    finally:
        _active, _timer, _suppressed = previous, previous_timer, previous_suppressed


def split_by_module(launched, module_name: str):
    """Kernel names defined in module_name, and names of the others (as "module.name")."""
    own = [name for name, module, *_ in launched if module == module_name]
    other = [f"{module}.{name}" if module else name for name, module, *_ in launched if module != module_name]
    return own, other


def idle_while_compiling(request: dict, writer, device) -> bool:
    """Triton's compile hooks (knobs.runtime.jit_cache_hook, called before a compile, and
    jit_post_compile_hook, after it) open and close an idle stretch (device_gate.py): the
    job's share is given back while Triton compiles. False where this Triton has no such hooks."""
    try:
        from triton import knobs
        runtime = knobs.runtime
        runtime.jit_cache_hook, runtime.jit_post_compile_hook  # noqa: B018 (both must exist)
    except (ImportError, AttributeError):
        return False

    def before_compile(**_):
        device_gate.begin_idle(request, writer, device)
        return None  # anything true would skip the compile

    def after_compile(**_):
        device_gate.end_idle()

    runtime.jit_cache_hook = before_compile
    runtime.jit_post_compile_hook = after_compile
    return True
