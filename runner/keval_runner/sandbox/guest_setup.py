"""What the guest is given: its own folder, the submission, and nothing of the task.

The guest works in `work_dir/guest` (the only folder its uid owns), so the controller's signal
files in work_dir and the outputs the warden saves stay out of its reach. The task's folder,
the whole suite (and the git checkout it lives in, whose history holds the goldens) and the
other submissions' folders are covered by empty mounts in the guest's mount namespace; the
folders it needs below them (its own, the submission's, the Python installation, the runner
package, the compile caches) are bound back.
"""

import ast
import os
import sys

from . import sandbox

GUEST_KINDS = ("candidate", "timing")


def _git_checkout_of(path: str):
    """The folder holding `.git` at or above path, or None."""
    folder = os.path.realpath(path)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def hidden_paths(request: dict) -> list:
    """Folders the guest must not read."""
    task_dir = request.get("task_dir") or ""
    work_dir = request.get("work_dir") or ""
    paths = []
    if task_dir:
        suite = os.path.dirname(os.path.realpath(task_dir))
        paths += [task_dir, suite]
        if os.path.basename(os.path.dirname(suite)) == "adapted":  # every adapted peer suite
            paths.append(os.path.dirname(suite))
        checkout = _git_checkout_of(task_dir)
        if checkout:
            paths.append(checkout)
    for baseline in request.get("baselines") or []:
        if baseline.get("code_file"):
            paths.append(os.path.dirname(baseline["code_file"]))
    if work_dir:  # OUT/work/<submission>/<job>: every submission's folder, and OUT itself
        submissions = os.path.dirname(os.path.dirname(os.path.realpath(work_dir)))
        paths.append(submissions)
        if os.path.basename(submissions) == "work":
            paths.append(os.path.dirname(submissions))
    return paths


def glue_paths(task_dir: str) -> list:
    """The files a peer adapter's glue loads (its submission_suffix.py, appended to every
    submission of the task: KernelBench's ModelNew gets Model's weights, so the problem file and
    the peer runtime must stay readable). Read from the task's file, never from the submission."""
    try:
        with open(os.path.join(task_dir, "submission_suffix.py")) as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return []
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and os.path.isabs(node.value)
            and os.path.exists(node.value)]


def guest_view(request: dict) -> dict:
    """The request as the guest's sandbox sees it."""
    view = dict(request)
    view["work_dir"] = os.path.join(request["work_dir"], "guest")
    view["outputs_dir"] = None
    view["task_dir"] = None
    view["baselines"] = None
    view["hidden_paths"] = hidden_paths(request)
    view["readable_paths"] = glue_paths(request["task_dir"]) if request.get("task_dir") else []
    return view


def enter_guest_sandbox(request: dict):
    """Run in the guest right after the fork: its folder, then the sandbox (when enabled).
    Returns the `sandbox` facts (None without a sandbox)."""
    view = guest_view(request)
    os.makedirs(view["work_dir"], exist_ok=True)
    os.chdir(view["work_dir"])
    settings = sandbox.settings_from(request)
    if settings is None:
        os.environ["TMPDIR"] = view["work_dir"]
        import tempfile
        tempfile.tempdir = None
        return None
    sys.dont_write_bytecode = True
    return sandbox.apply(settings, view)
