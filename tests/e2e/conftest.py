"""End-to-end tests: the real `keval` binary, the real runner, CPU mode (Triton interpreter)."""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))


def run_keval(*args, check=True, timeout=900):
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)  # keval decides the mode itself
    proc = subprocess.run([KEVAL, *map(str, args)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"keval {' '.join(map(str, args))} exited {proc.returncode}:\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc


def read_results(out):
    lines = (pathlib.Path(out) / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="session")
def examples_run(tmp_path_factory):
    """One CPU run over every example submission, shared by the tests that read it."""
    out = tmp_path_factory.mktemp("examples")
    proc = run_keval("run", "--suite", "suites/keval", "--submissions",
                     "examples/submissions.jsonl", "--out", out, "--device", "cpu")
    return out, proc
