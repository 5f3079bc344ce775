"""Helpers for the KernelBench and KernelBenchX adapter tests: small fixtures written in each
peer's format (fixtures/), the Python adapter run as keval runs it, the suites loaded and judged
by the real `keval` binary in CPU mode (Triton's interpreter)."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
PYTHON = os.environ.get("KEVAL_PYTHON") or (
    "/opt/keval-venv/bin/python" if os.path.exists("/opt/keval-venv/bin/python") else sys.executable)

sys.path.insert(0, str(REPO / "runner"))


def make_env(cache):
    """Environment for keval and the adapter: the runner's interpreter, a private cache folder
    (`cache`: the adapted suites land there, and jobs that run as another uid read them)."""
    out = dict(os.environ)
    out.pop("TRITON_INTERPRET", None)  # keval decides the mode itself
    out.update({"KEVAL_PYTHON": PYTHON, "KEVAL_CACHE_DIR": str(cache),
                "PYTHONPATH": str(REPO / "runner")})
    return out


def adapter(env, *args, check=True):
    proc = subprocess.run([PYTHON, "-m", "keval_adapters", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"adapter {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def keval(env, *args, check=True):
    proc = subprocess.run([KEVAL, *map(str, args)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"keval {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def verdicts(out) -> dict:
    lines = (pathlib.Path(out) / "results.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def shared_folder():
    """A folder other uids can traverse (pytest's tmp folders are private): for keval's cache."""
    path = tempfile.mkdtemp(prefix="keval-kb-test-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None)
    os.chmod(path, 0o755)
    return path


def remove(path):
    shutil.rmtree(path, ignore_errors=True)


def out_dir(tmp_path_factory, name):
    path = tmp_path_factory.mktemp(name)
    os.chmod(path, 0o755)  # job folders stay under it (keval relocates them from private folders)
    return path
