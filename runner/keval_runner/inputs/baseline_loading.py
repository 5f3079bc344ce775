"""The baselines a timing job times the candidate against, loaded from its request: the golden (as
a submission of its task, with the suite's glue), the eager reference and torch.compile of it."""

import os

import torch

from .loading import find_entry, load_module
from .task_files import load_reference_module


def load_golden(code_file: str, task_dir: str):
    """The golden as a submission of its task: the task's adapter glue (submission_suffix.py,
    which the controller appends to every submission) runs at the end of its module. A
    TritonBench golden is the peer's own code, without the entry the glue defines."""
    module = load_module(code_file, "keval_baseline_golden")
    glue = os.path.join(task_dir, "submission_suffix.py")
    if os.path.isfile(glue):
        with open(glue, encoding="utf-8") as f:
            exec(compile(f.read(), glue, "exec"), module.__dict__)  # noqa: S102 - the suite's own glue
    return module


def load_baselines(request: dict, writer) -> list:
    """(name, callable) of each of the request's baselines that loads; a failure is an `error`
    sent through `writer`, stage "baseline" (the reference's own, stage "task")."""
    from ..protocol.errors import describe
    reference = None
    loaded = []
    for baseline in request.get("baselines") or []:
        name = baseline.get("name")
        try:
            if name == "golden":
                module = load_golden(baseline["code_file"], request["task_dir"])
                loaded.append((name, find_entry(module, request.get("entry", ""))[1]))
                continue
            if reference is None:
                reference = load_reference_module(request["task_dir"], writer)
            if name == "eager":
                loaded.append((name, reference.reference))
            elif name == "compile":
                loaded.append((name, torch.compile(reference.reference)))
            else:
                raise ValueError(f"unknown baseline {name!r}")
        except Exception as exc:
            writer.error("baseline", **describe(exc), baseline=name)
    return loaded
