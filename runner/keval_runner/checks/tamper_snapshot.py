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

import operator
import sys
import types

PACKAGE = "keval_runner"
# Runner names that change by design while a job runs (a diagnostic of the last cover compile).
CHANGING = {"keval_runner.timing.launch_cover.LaunchCover.failure"}
# Library namespaces whose public functions the baselines and the checks call: a submission
# that rebinds one (say torch.empty_like, to slow a baseline down) is tampering, whatever it
# gains. Private names are left out (libraries cache state in them), and so is
# triton.language, which Triton's interpreter itself patches while it runs a kernel.
LIBRARY_MODULES = ("torch", "torch.nn.functional", "torch.cuda", "torch.testing", "time", "os", "json", "builtins")
LIBRARY_CLASSES = (("torch", "Tensor"),)


def _function_parts(fn) -> list:
    return [("__code__", fn.__code__), ("__defaults__", fn.__defaults__), ("__kwdefaults__", fn.__kwdefaults__)]


class _IdentityCheck:
    """Whether every entry still holds its original object, compared by identity in C calls
    (itemgetter, attrgetter, map over operator.is_): the guest checks before every reply, a
    timing sample's included, and a Python loop over some 4,000 entries took about 2 ms.
    Never ==: a replacement's own __eq__ could claim to be the original."""

    def __init__(self, entries: list):
        by_dict, by_part = {}, {}
        for _, owner, attr, original in entries:
            if isinstance(owner, types.FunctionType):
                fns, originals = by_part.setdefault(attr, ([], []))
                fns.append(owner)
                originals.append(original)
            else:
                attrs, originals, _ = by_dict.setdefault(id(owner), ([], [], owner))
                attrs.append(attr)
                originals.append(original)
        # (owner, getter of its values, originals) per module or class; the first name twice,
        # so that the getter returns a tuple even for an owner of one name
        self.dicts = [(owner, operator.itemgetter(*attrs, attrs[0]), tuple(originals) + (originals[0],))
                      for attrs, originals, owner in by_dict.values()]
        # (getter of one part, functions, originals) per function part (__code__, ...)
        self.parts = [(operator.attrgetter(part), fns, originals) for part, (fns, originals) in by_part.items()]

    def unchanged(self) -> bool:
        is_ = operator.is_
        try:
            for owner, values, originals in self.dicts:
                if not all(map(is_, values(vars(owner)), originals)):
                    return False
            return all(all(map(is_, map(get, fns), originals)) for get, fns, originals in self.parts)
        except Exception:  # a name deleted, an owner made strange: the full walk says what
            return False


class RunnerSnapshot:
    def __init__(self, entries: list):
        self.entries = entries  # (name, owner, attribute, original object)
        self.reported = set()
        self.identity = _IdentityCheck(entries)

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
        if self.identity.unchanged():
            return []
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
