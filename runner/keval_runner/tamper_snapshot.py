"""Everything of the runner (and of the libraries it calls) the submission could rebind,
remembered before it loads.

checks.TamperWatch watches a fixed list of library names (torch, time, json, Triton's launch
path). This covers the runner itself, whole: every global of every keval_runner module, every
function's code object and defaults, every class attribute (methods' code objects included).
A submission reaching them through sys.modules, gc.get_objects() or a frame's f_globals and
rebinding or re-coding any of them is reported (and the original put back) at the guest's
next reply. What it cannot see: a change inside a mutable object (a list's items), and
anything done through ctypes to memory: docs/trust.md says what remains.
"""

import sys
import types

PACKAGE = "keval_runner"
# Runner names that change by design while a job runs (a diagnostic of the last cover compile).
CHANGING = {"keval_runner.launch_cover.LaunchCover.failure"}
# Library namespaces whose public functions the baselines and the checks call: a submission
# that rebinds one (say torch.empty_like, to slow a baseline down) is tampering, whatever it
# gains. Private names are left out (libraries cache state in them), and so is
# triton.language, which Triton's interpreter itself patches while it runs a kernel.
LIBRARY_MODULES = ("torch", "torch.nn.functional", "torch.cuda", "torch.testing", "time", "os", "json", "builtins")
LIBRARY_CLASSES = (("torch", "Tensor"),)


def _function_parts(fn) -> list:
    return [("__code__", fn.__code__), ("__defaults__", fn.__defaults__), ("__kwdefaults__", fn.__kwdefaults__)]


class RunnerSnapshot:
    def __init__(self, entries: list):
        self.entries = entries  # (name, owner, attribute, original object)
        self.reported = set()

    @classmethod
    def take(cls, package: str = PACKAGE):
        entries = []
        for module_name, module in sorted(sys.modules.items()):
            if module is None or not (module_name == package or module_name.startswith(package + ".")):
                continue
            for attr, value in list(vars(module).items()):
                entries.append((f"{module_name}.{attr}", module, attr, value))
                owned = getattr(value, "__module__", None) == module_name
                if isinstance(value, types.FunctionType) and owned:
                    entries += [(f"{module_name}.{attr}.{part}", value, part, obj)
                                for part, obj in _function_parts(value)]
                elif isinstance(value, type) and owned:
                    entries += cls._class_entries(f"{module_name}.{attr}", value)
        for module_name in LIBRARY_MODULES:
            module = sys.modules.get(module_name)
            if module is not None:
                entries += [(f"{module_name}.{attr}", module, attr, value) for attr, value in list(vars(module).items())
                            if not attr.startswith("_")]
        for module_name, class_name in LIBRARY_CLASSES:
            klass = getattr(sys.modules.get(module_name), class_name, None)
            if isinstance(klass, type):
                entries += [(f"{module_name}.{class_name}.{attr}", klass, attr, value)
                            for attr, value in list(vars(klass).items())
                            if not attr.startswith("_") or (attr.startswith("__") and attr not in ("__dict__", "__weakref__", "__doc__"))]
        return cls([entry for entry in entries if entry[0] not in CHANGING])

    @staticmethod
    def _class_entries(prefix: str, klass: type) -> list:
        entries = []
        for attr, value in list(vars(klass).items()):
            if attr in ("__dict__", "__weakref__", "__doc__"):
                continue
            entries.append((f"{prefix}.{attr}", klass, attr, value))
            if isinstance(value, types.FunctionType):
                entries += [(f"{prefix}.{attr}.{part}", value, part, obj) for part, obj in _function_parts(value)]
        return entries

    def changed(self) -> list:
        """Names rebound since the snapshot and not reported yet; the originals are put back."""
        names = []
        for name, owner, attr, original in self.entries:
            try:
                current = vars(owner).get(attr, _MISSING) if not isinstance(owner, types.FunctionType) \
                    else getattr(owner, attr)
            except Exception:
                current = _MISSING
            if current is original:
                continue
            try:
                setattr(owner, attr, original)
            except Exception:
                pass
            if name not in self.reported:
                self.reported.add(name)
                names.append(name)
        return names


_MISSING = object()
