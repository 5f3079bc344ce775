"""Input sets drawn once in the zygote and shared by every job of the slot.

CPU mode only (CUDA jobs draw their inputs on the GPU: inputs.py). A submission's candidate,
reference and timing jobs (and the next submissions of the same task on this slot) use the same
seeds, and CPU draws of the larger cases take seconds. Before forking a job whose request says
`shared_inputs`, the zygote calls the task's make_inputs for each of the job's (case, seed)
into the memo of inputs.py; the child inherits it (copy-on-write) and builds device copies.

Only for tasks whose make_inputs is CPU-only and draws from its own torch.Generator (keval's
own format; peer adapters write `shared_inputs = false`): CUDA initialised in the zygote would
break every later child's CUDA, and the sets are drawn on several threads at once.
A failure here is only a lost speed-up: the job then draws its own inputs and reports errors.
"""

import os
import sys

from .inputs import prebuild
from .task_files import load_task_module

JOB_KINDS = ("candidate", "reference", "timing")
# Input sets drawn side by side: CPU random draws are single-threaded per generator, and a
# GPU machine has cores to spare while the zygote waits (each task's Generator is its own).
DRAW_THREADS = max(1, min(8, os.cpu_count() or 1))


MODULE_PREFIX = "keval_zygote_inputs_"


def forget_task_modules() -> None:
    """In a guest just forked: drops the task modules (reference.py) the zygote loaded to draw
    inputs, which the guest would otherwise hold (docs/trust.md: it holds no task file)."""
    for name in [n for n in sys.modules if n.startswith(MODULE_PREFIX)]:
        module = sys.modules.pop(name)
        module.__dict__.clear()  # this process's copy: the zygote keeps its own


class SharedInputs:
    def __init__(self):
        self._modules = {}  # reference.py path -> (mtime_ns, module)

    def _make_inputs(self, task_dir: str):
        path = os.path.join(task_dir, "reference.py")
        mtime = os.stat(path).st_mtime_ns
        cached = self._modules.get(path)
        if cached is None or cached[0] != mtime:
            module = load_task_module(task_dir, f"{MODULE_PREFIX}{len(self._modules)}")
            self._modules[path] = (mtime, module)
        return self._modules[path][1].make_inputs

    def prebuild_for(self, request: dict) -> int:
        """Draws the job's input sets into the memo; returns how many (0 when not asked)."""
        if not request.get("shared_inputs") or request.get("kind") not in JOB_KINDS:
            return 0
        if request.get("device", "cpu") != "cpu":
            return 0  # CUDA jobs draw on the GPU themselves (milliseconds; CUDA is not fork-safe)
        import torch

        built = 0
        try:
            make_inputs = self._make_inputs(request["task_dir"])
            planned = [(case, seed) for case in request.get("cases") or [] for seed in case.get("seeds") or []]
            built = prebuild(make_inputs, planned, threads=DRAW_THREADS)
        except Exception as exc:
            print(f"keval_runner: inputs not shared ({type(exc).__name__}: {exc}); the job draws its own",
                  file=sys.stderr)
        if torch.cuda.is_initialized():
            # make_inputs touched CUDA: no later fork of this process could use the GPU
            print("keval_runner: a task's make_inputs initialised CUDA in the zygote; leaving so the "
                  "controller starts a fresh one (set shared_inputs = false for this task)", file=sys.stderr)
            os._exit(70)
        return built
