"""Each survivor through the differential check (differential.py), one process per task, with
the evidence kept in OUT/equivalence/TASK/ and reused while the mutant, the task's files and the
check's settings are the same (a second `keval mutate` does not redo it)."""
import hashlib
import json
import os
import signal
import subprocess
import sys

from .differential import UNCHECKED
from .trial_shapes import PLAN_VERSION

FOLDER = "equivalence"
RUNNER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stem(mutant_id: str) -> str:
    return mutant_id.removeprefix("mutant:").replace(":", ".")


def fingerprint(code: str, task_dir: str, trials: int, seed: int) -> str:
    digest = hashlib.sha256(code.encode())
    for name in ("task.toml", "reference.py", "golden.py"):
        with open(os.path.join(task_dir, name), "rb") as f:
            digest.update(f.read())
    digest.update(f"{trials}:{seed}:{PLAN_VERSION}".encode())
    return digest.hexdigest()[:16]


def _stored(path: str, print_: str):
    try:
        with open(path, encoding="utf-8") as f:
            evidence = json.load(f)
    except (OSError, ValueError):
        return None
    return evidence if evidence.get("fingerprint") == print_ and evidence.get("verdict") != UNCHECKED else None


def _stop(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def check_task(out: str, task: str, task_dir: str, survivors: list, trials: int, seed: int,
               budget_s: float, log=sys.stderr) -> dict:
    """survivors: [(id, code)]. {id: evidence} (verdict equivalent, survived or unchecked)."""
    folder = os.path.join(out, FOLDER, task)
    os.makedirs(folder, exist_ok=True)
    results, todo, prints = {}, [], {}
    for mutant_id, code in survivors:
        prints[mutant_id] = fingerprint(code, task_dir, trials, seed)
        evidence_path = os.path.join(folder, stem(mutant_id) + ".json")
        stored = _stored(evidence_path, prints[mutant_id])
        if stored:
            results[mutant_id] = stored
            continue
        path = os.path.join(folder, stem(mutant_id) + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(code)
        todo.append((mutant_id, path))
    if todo:
        print(f"differential check of {len(todo)} survivor(s) of {task} ({trials} trials, CPU interpreter)",
              file=log, flush=True)
        command = [sys.executable, "-m", "keval_mutate", "differential", "--task-dir", task_dir, "--out", folder,
                   "--trials", str(trials), "--seed", str(seed), "--budget-s", str(budget_s)]
        for mutant_id, path in todo:
            command += ["--mutant", f"{mutant_id}={path}"]
        env = {**os.environ, "TRITON_INTERPRET": "1",
               "PYTHONPATH": RUNNER + os.pathsep + os.environ.get("PYTHONPATH", "")}
        # its own process group: the mutants' calls it forks are stopped with it, whatever ends it
        proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=budget_s + 600)
            failure = "" if proc.returncode == 0 else (
                f"the check exited {proc.returncode}: {(stderr.strip().splitlines() or [''])[-1][:300]}")
        except subprocess.TimeoutExpired:
            _stop(proc)
            failure = f"the check ran past {budget_s + 600:.0f} s"
        except BaseException:  # Ctrl-C or SIGTERM (stopping.py): nothing of the check runs on
            _stop(proc)
            raise
        for mutant_id, path in todo:
            evidence_path = os.path.join(folder, stem(mutant_id) + ".json")
            try:
                with open(evidence_path, encoding="utf-8") as f:
                    evidence = json.load(f)
            except (OSError, ValueError):
                evidence = {"id": mutant_id, "verdict": UNCHECKED, "unchecked_because": failure or "no evidence written"}
            evidence["fingerprint"] = prints[mutant_id]
            with open(evidence_path, "w", encoding="utf-8") as f:
                json.dump(evidence, f, indent=1)
            results[mutant_id] = evidence
    for mutant_id in results:
        results[mutant_id]["evidence_file"] = f"{FOLDER}/{task}/{stem(mutant_id)}.json"
    return results
