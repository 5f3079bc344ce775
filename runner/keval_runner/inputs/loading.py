"""Loads task and candidate Python files as modules and finds the entry callable.

Each file becomes its own module with a fixed, distinct name; the module is placed in
sys.modules before its code runs, because Triton's @jit reads the kernel source back via
inspect (which needs the module and its real file on disk).
"""

import difflib
import importlib.util
import inspect
import sys

CANDIDATE_MODULE = "keval_candidate"
REFERENCE_MODULE = "keval_task_reference"
FALLBACK_ENTRY = "kernel_function"


def load_module(path: str, module_name: str):
    """Executes the file at path as module_name; exceptions from its code propagate."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def top_level_callables(module) -> list:
    """Public callables the module defines itself (not the ones it imported)."""
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or not callable(value) or inspect.ismodule(value):
            continue
        if getattr(value, "__module__", None) == module.__name__:
            names.append(name)
    return sorted(names)


class MissingEntry(Exception):
    pass


def find_entry(module, entry: str):
    """Returns (name, callable): `entry` if defined, else `kernel_function`."""
    for name in (entry, FALLBACK_ENTRY):
        if not name:
            continue
        value = getattr(module, name, None)
        if value is not None and callable(value):
            return name, value

    defined = top_level_callables(module)
    message = f"the code defines no callable named '{entry}' (nor '{FALLBACK_ENTRY}')"
    if defined:
        message += "; it defines: " + ", ".join(defined)
    close = difflib.get_close_matches(entry or "", defined, n=1)
    if close:
        message += f". Did you mean '{close[0]}'?"
    not_callable = [n for n in (entry, FALLBACK_ENTRY) if n and hasattr(module, n)]
    if not_callable:
        message += f" ('{not_callable[0]}' exists but is not callable)"
    raise MissingEntry(message)


def require_attribute(module, name: str, path: str):
    """A function the task's reference.py must define (reference, make_inputs)."""
    value = getattr(module, name, None)
    if value is None or not callable(value):
        raise AttributeError(f"{path} defines no callable '{name}'")
    return value
