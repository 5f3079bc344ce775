"""Loads the task's reference.py (both job kinds need its make_inputs).

A broken reference.py is the task's fault, never the candidate's, so it is reported with
stage "task" (line = the line in reference.py where known).
"""

import os

from ..protocol.errors import describe
from .inputs import tag_task
from .loading import REFERENCE_MODULE, load_module, require_attribute


def load_task_module(task_dir: str, module_name: str = REFERENCE_MODULE):
    """reference.py as module_name, its make_inputs tagged with the task; raises on any fault."""
    path = os.path.join(task_dir, "reference.py")
    module = load_module(path, module_name)
    require_attribute(module, "make_inputs", path)
    require_attribute(module, "reference", path)
    tag_task(module.make_inputs, task_dir)
    return module


def load_reference_module(task_dir: str, writer):
    """The reference module, or None after sending an `error` with stage "task"."""
    path = os.path.join(task_dir, "reference.py")
    try:
        return load_task_module(task_dir)
    except (Exception, SystemExit) as exc:
        fields = describe(exc, path)
        fields["message"] = f"{path}: {fields['message']}"
        writer.error("task", **fields)
        return None
