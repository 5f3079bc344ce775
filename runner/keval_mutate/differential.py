"""`differential`: the wide check that tells an equivalent survivor from a hole.

For each trial (trial_plan: a shape of trial_shapes; a dtype of the task, a value regime of
trial_values and the inputs it bends) the task's make_inputs draws the inputs, the reference
and the golden run on them (the golden under the bounds check of interpreter_memcheck), and,
where the golden agrees with the reference, each mutant still standing runs in a forked child:
its outputs against the reference's under the task's tolerance, its inputs unchanged (unless
the task is inplace), every load and store inside the launch's tensors. The first trial a
mutant fails exposes it (`survived`, with that trial as the evidence); a mutant that agrees on
every trial is `equivalent`, with the trials as the evidence. A trial the golden itself fails
is outside the task's domain and skipped.

Runs under TRITON_INTERPRET=1 on the CPU; writes OUT/<mutant file stem>.json per mutant.
"""
import json
import os
import select
import signal
import time
import tomllib

from .trial_plan import trials_of
from .trial_shapes import within_time
from .trial_values import bend, targets

EQUIVALENT, SURVIVED, UNCHECKED = "equivalent", "survived", "unchecked"
# Tests only: the check makes PATH.reached and waits for PATH before its first trial, so a test
# can stop `keval mutate` while it is surely in the check (tests/mutate/test_mutate_interrupt.py).
HOLD_ENV = "KEVAL_MUTATE_HOLD"


def _hold_if_asked() -> None:
    path = os.environ.get(HOLD_ENV)
    if not path:
        return
    with open(path + ".reached", "w", encoding="utf-8"):
        pass
    while not os.path.exists(path):
        time.sleep(0.05)


def _prepare_process():
    os.environ["TRITON_INTERPRET"] = "1"
    import torch
    torch.set_num_threads(1)  # children fork from here; a shared 2-core machine
    torch.use_deterministic_algorithms(True, warn_only=True)  # torch.empty is NaN-filled: unwritten outputs show
    from keval_runner.interpreter.interpreter_memcheck import enable_memcheck
    from keval_runner.interpreter.interpreter_support import enable_interpreter_support
    enable_interpreter_support()
    problem = enable_memcheck(everywhere=True)
    return problem


def read_task(task_dir: str) -> dict:
    path = os.path.join(task_dir, "task.toml")
    with open(path, "rb") as f:
        task = tomllib.load(f)
    small = [c for c in task.get("cases", []) if c.get("small")]
    if not small:
        raise ValueError(f"{path}: no small case to draw the check's shapes from")
    return {"entry": task["entry"], "dtypes": task["dtypes"], "inplace": task.get("inplace", False),
            "tolerance": task["tolerance"], "templates": small, "cases": task.get("cases", [])}


def floating_inputs(reference, task: dict) -> int:
    """How many floating tensors make_inputs returns (on the first small case): the plan bends
    them all in some trials when there are several."""
    import torch
    template = task["templates"][0]
    dtype = (template.get("dtypes") or task["dtypes"])[0]
    try:
        with torch.device("cpu"):
            args = reference.make_inputs(dict(template.get("params", {})), getattr(torch, dtype), 0)
    except Exception:  # noqa: BLE001 - the trials will say why
        return 1
    return max(1, len(targets(tuple(args), "all")))


def _clone(args):
    import torch
    return tuple(a.detach().clone() if isinstance(a, torch.Tensor) else a for a in args)


def disagreement(fn, args, refs, trial, inplace: bool) -> str:
    """'' when fn(args) agrees with refs under the trial's tolerance; else what differs."""
    import torch
    from keval_runner.compare.compare import as_output_list, compare_outputs, tensors_identical
    mine = _clone(args)
    try:
        outs = as_output_list(fn(*mine))
    except Exception as exc:  # noqa: BLE001 - any failure of the call is the finding
        cause = exc.__cause__ if type(exc.__cause__).__name__ == "OutOfBounds" else exc
        if type(cause).__name__ == "OutOfBounds":
            return f"out of bounds: {cause}"
        return f"raised {type(exc).__name__}: {str(exc)[:300]}"
    if len(outs) != len(refs):
        return f"returned {len(outs)} output(s), the reference {len(refs)}"
    for out, ref in zip(outs, refs):
        if out.shape != ref.shape or out.dtype != ref.dtype:
            return (f"output {list(out.shape)} {out.dtype}, the reference {list(ref.shape)} {ref.dtype}")
    for facts in compare_outputs(outs, refs, trial["atol"], trial["rtol"]):
        if facts["n_over_tol"]:
            bad = facts["first_bad"] or {}
            return (f"output {facts['index']}: {facts['n_over_tol']} element(s) off (max abs err "
                    f"{facts['max_abs_err']}, NaN/Inf disagreements {facts['nan_disagree']}/{facts['inf_disagree']}); "
                    f"first at {bad.get('position')}: {bad.get('actual')} where the reference has {bad.get('expected')}")
    if not inplace:
        for i, (before, after) in enumerate(zip(args, mine)):
            if isinstance(before, torch.Tensor) and not tensors_identical(before, after):
                return f"changed input {i}"
    return ""


def _in_child(fn, args, refs, trial, inplace, timeout_s: float) -> str:
    """disagreement() in a forked child: a crash or a hang is a finding, not the end of the check."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            message = disagreement(fn, args, refs, trial, inplace)
        except BaseException as exc:  # noqa: BLE001
            message = f"raised {type(exc).__name__}: {exc}"
        os.write(write_end, json.dumps({"message": message}).encode())
        os._exit(0)
    os.close(write_end)
    data, deadline = b"", time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_end], [], [], left)[0]:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
            return f"timed out after {timeout_s:.0f} s"
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"crashed (signal {os.WTERMSIG(status)})"
    try:
        return json.loads(data)["message"]
    except ValueError:
        return f"the child exited {os.WEXITSTATUS(status)} without a result"


def _skip(counts: dict, first: dict, reason: str, trial: dict) -> None:
    counts[reason] = counts.get(reason, 0) + 1
    first.setdefault(reason, trial)


def check(task_dir: str, mutants: list, out: str, trials: int, seed: int, budget_s: float,
          call_timeout_s: float = 120.0) -> dict:
    """mutants: [(id, path)]. Writes OUT/<stem>.json per mutant; returns {id: evidence}."""
    memcheck_problem = _prepare_process()
    from keval_runner.compare.compare import as_output_list
    from keval_runner.inputs.loading import find_entry, load_module
    from keval_runner.inputs.task_files import load_task_module
    task = read_task(task_dir)
    reference = load_task_module(task_dir)
    _, golden = find_entry(load_module(os.path.join(task_dir, "golden.py"), "keval_golden"), task["entry"])
    standing = {}
    for number, (mutant_id, path) in enumerate(mutants):
        _, fn = find_entry(load_module(path, f"keval_mutant_{number}"), task["entry"])
        standing[mutant_id] = fn
    evidence = {m: {"id": m, "file": os.path.basename(p), "verdict": UNCHECKED, "trials_planned": 0, "compared": 0,
                    "dtypes": [], "regimes": [], "exposed_by": None, "skipped": {}, "memcheck": not memcheck_problem}
                for m, p in mutants}
    planned = trials_of(task, trials, seed, floating_inputs(reference, task))
    _hold_if_asked()
    started, skipped, first_skipped, compared = time.monotonic(), {}, {}, []
    # per small case, the golden's cheapest call on it as listed, in CPU seconds of this process
    # (the golden runs here; wall time on a busy machine would cut the raises by its load)
    case_s = {}
    import torch
    for trial in planned:
        if not standing:
            break
        if time.monotonic() - started > budget_s:
            skipped["out of time"] = skipped.get("out of time", 0) + 1
            continue
        if trial["raised"]:
            trial = within_time(trial, case_s.get(trial["template"], max(case_s.values(), default=0.0)))
        brief = {k: trial[k] for k in ("index", "template", "case", "kinds", "dtype", "regime", "which", "seed")}
        try:
            with torch.device("cpu"):
                args = reference.make_inputs(dict(trial["case"]), getattr(torch, trial["dtype"]), trial["seed"])
            brief["bent"] = targets(tuple(args), trial["which"]) if trial["regime"] != "as_drawn" else []
            args = bend(tuple(args), trial["regime"], trial["which"])
            refs = as_output_list(reference.reference(*_clone(args)))
        except Exception as exc:  # noqa: BLE001 - a shape the task's reference does not take
            _skip(skipped, first_skipped, f"the reference or make_inputs raised {type(exc).__name__}",
                  {**brief, "what": str(exc)[:300]})
            continue
        called = time.process_time()
        golden_says = disagreement(golden, args, refs, trial, task["inplace"])
        if trial["kinds"].get("shape") == "a case of the task":
            case_s[trial["template"]] = min(case_s.get(trial["template"], 1e9), time.process_time() - called)
        if golden_says:
            _skip(skipped, first_skipped, "the golden disagrees with the reference (outside the task's domain)",
                  {**brief, "what": golden_says})
            continue
        compared.append(brief)
        for mutant_id, fn in list(standing.items()):
            message = _in_child(fn, args, refs, trial, task["inplace"], call_timeout_s)
            if message:
                evidence[mutant_id].update(verdict=SURVIVED, exposed_by={**brief, "what": message})
                evidence[mutant_id]["compared"] = len(compared)
                del standing[mutant_id]
    dtypes = sorted({t["dtype"] for t in compared})
    regimes = sorted({t["regime"] for t in compared})
    enough = len(compared) >= len(planned) // 3
    for mutant_id in standing:
        e = evidence[mutant_id]
        e.update(compared=len(compared), dtypes=dtypes, regimes=regimes, trials=compared)
        missing = sorted(set(task["dtypes"]) - set(dtypes))
        if not enough or missing or skipped.get("out of time"):
            why = []
            if not enough:
                why.append(f"only {len(compared)} of {len(planned)} trials in the task's domain")
            if missing:
                why.append(f"no trial compared in {', '.join(missing)}")
            if skipped.get("out of time"):
                why.append(f"{skipped['out of time']} trial(s) left when the {budget_s:.0f} s budget ran out")
            e["unchecked_because"] = "; ".join(why)
        else:
            e["verdict"] = EQUIVALENT
    for mutant_id, e in evidence.items():
        e.update(trials_planned=len(planned), skipped=skipped, first_skipped=first_skipped, seed=seed)
        with open(os.path.join(out, os.path.splitext(e["file"])[0] + ".json"), "w", encoding="utf-8") as f:
            json.dump(e, f, indent=1)
    return evidence
