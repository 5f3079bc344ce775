"""Helpers of the tests that run exported rows on their own: records of goldens built from the
suite, and one row's program run in a fresh interpreter (Triton's, on the CPU) by run_row.py."""
import json
import os
import pathlib
import subprocess
import sys
import tomllib

from conftest import REPO

RUN_ROW = pathlib.Path(__file__).with_name("run_row.py")


def tolerance(task: str, dtype: str) -> tuple:
    with open(REPO / "suites/keval" / task / "task.toml", "rb") as f:
        tol = tomllib.load(f).get("tolerance", {}).get(dtype, {})
    return float(tol.get("atol", 0.0)), float(tol.get("rtol", 0.0))


def golden_record(task: str, code: str = None, **overrides) -> dict:
    """A passing record of the task's golden on its first small case and first dtype, as keval's
    store would give it (its suite_version that of the suite's files now)."""
    from keval_dataset.task_sources import KevalTask

    spec = KevalTask(str(REPO / "suites/keval" / task))
    cases = spec.toml["cases"]
    case = next((c for c in cases if c.get("small")), cases[0])
    record = {"task": task, "program": code or (REPO / "suites/keval" / task / "golden.py").read_text(),
              "verdict": "pass", "latency_ms": 1.0, "submission_hash": f"{task}-golden", "eval_key": f"{task}-k",
              "suite": "keval", "suite_version": spec.fingerprint, "case": case["name"],
              "dtype": spec.toml["dtypes"][0], "shapes": case.get("params", {}), "source_db": "/m/run/keval.db"}
    record.update(overrides)
    return record


def write_records(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def run_row(row: dict, folder: pathlib.Path) -> dict:
    """{"match": bool, "detail": str} of Model against ModelNew on get_inputs(); raises with the
    program's stderr when it did not run."""
    path = folder / (row["keval_problem"].replace("/", "_") + f"-{row['program_hash'][:12]}.py")
    path.write_text(row["x"])
    atol, rtol = tolerance(row["task"], row["dtype"])
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    env.pop("PYTHONPATH", None)  # the program stands alone: nothing of keval on its path
    proc = subprocess.run([sys.executable, str(RUN_ROW), str(path), str(atol), str(rtol)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"{path.name} did not run ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
