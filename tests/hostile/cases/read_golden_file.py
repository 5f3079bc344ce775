# task: relu
# expect: no_kernel|runtime_error|tampering
# device: both
# why: reads the task's golden.py (found from the task module the runner loaded, or from the runner package's checkout), loads it, and launches the golden's kernel relabelled as its own
import importlib.util
import os
import sys

import torch


def _golden_paths():
    reference = sys.modules.get("keval_task_reference")
    if reference is not None and getattr(reference, "__file__", None):
        yield os.path.join(os.path.dirname(reference.__file__), "golden.py")
    runner = sys.modules.get("keval_runner")
    if runner is not None:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(runner.__file__))))
        yield os.path.join(root, "suites", "keval", "relu", "golden.py")


_golden = None
for _path in _golden_paths():
    try:
        spec = importlib.util.spec_from_file_location("keval_candidate_helper", _path)
        _golden = importlib.util.module_from_spec(spec)
        sys.modules["keval_candidate_helper"] = _golden
        spec.loader.exec_module(_golden)
        for value in vars(_golden).values():
            fn = getattr(value, "fn", None)
            if fn is not None:
                fn.__module__ = "keval_candidate"
        break
    except Exception:
        _golden = None


def relu(x):
    if _golden is not None:
        return _golden.relu(x)
    return torch.relu(x)
