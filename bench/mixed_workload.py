"""Seconds per fully judged candidate on a mixed workload (issue 19): keval's core tasks, some
KernelBenchX tasks and some TritonBench-T tasks, judged by `keval run` at default settings, one
suite after the other. Core: each task's golden and a broken copy (one store 5% off).
KernelBenchX: each task's reference (in PyTorch, so the suite is `any-code`) and a copy whose
outputs are 10% off; its checkout ships no Triton solutions (its corpus's code has lost its line
breaks). TritonBench-T: one model's published outputs (LLM_generated/), right or not.

    python bench/mixed_workload.py --kernelbenchx CHECKOUT --tritonbench CHECKOUT
        [--core-tasks a,b] [--peer-tasks 8] [--device cuda] [--keval-args "--jobs 8"]

Prints, per suite and in all: candidates, wall seconds with start-up (the whole run), the steady
rate (from the first judgement to the last, keval.db's `created_at`) and the seconds outside it
(start-up to the first judgement, and the run's end), how many passed, and how
many meant-correct ones passed and meant-broken ones failed. A peer is left out when its
checkout is not given. `--write DIR` keeps each suite's candidates and results (NAME.jsonl, NAME-results.jsonl), the
KernelBenchX ones also in its own format (kernelbenchx-own-format.jsonl, for
bench/peer_throughput.py).
The targets (one H200, default settings): steady ≤ 2 s per candidate, whole run ≤ 3 s.
"""
import argparse
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from common import CORE_TASKS, REPO, broken, golden_code, keval_python, results, run_keval, variant, write_jsonl
from throughput import steady_seconds_per_candidate


def spread(items: list, count: int) -> list:
    """`count` items spread evenly over the list (not only its first letters)."""
    if len(items) <= count:
        return items
    return [items[i * len(items) // count] for i in range(count)]


def kernelbenchx_goldens(checkout: str, work: pathlib.Path) -> dict:
    """{task: golden code} from KernelBenchX's adapter (docs/peers.md): its references, in
    PyTorch, each with keval's glue at its end."""
    out = work / "adapted-kernelbenchx"
    done = subprocess.run([keval_python(), "-m", "keval_adapters", "kernelbenchx", "suite", "--source", checkout,
                           "--out", str(out)], env=dict(os.environ, PYTHONPATH=str(REPO / "runner")),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"kernelbenchx: the adapter failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return {golden.parent.name: golden.read_text() for golden in sorted(out.glob("*/golden.py"))}


_GLUE = re.compile(r"^# keval KernelBenchX glue: `\w+` becomes the entry when the code above defines `(\w+)`", re.M)


def without_glue(golden: str) -> str:
    """The reference alone: the suite appends its own glue to every submission, and the
    golden's points into the adapter's folder."""
    glue = _GLUE.search(golden)
    return golden[:glue.start()] if glue else golden


def off_by_a_tenth(golden: str):
    """The reference with its function's floating-point outputs 10% off, or None when the glue
    does not name the function."""
    glue = _GLUE.search(golden)
    if glue is None:
        return None
    function = glue.group(1)
    wrapper = (f"_keval_bench_right = {function}\n\n\n"
               f"def {function}(*args, **kwargs):  # the bench's broken copy\n"
               f"    out = _keval_bench_right(*args, **kwargs)\n"
               f"    off = lambda t: t * 1.1 if isinstance(t, torch.Tensor) and t.is_floating_point() else t\n"
               f"    return type(out)(map(off, out)) if isinstance(out, (tuple, list)) else off(out)\n\n\n")
    return without_glue(golden) + "\nimport torch\n\n" + wrapper


def kernelbenchx_candidates(checkout: str, count: int, work: pathlib.Path) -> list:
    """For `count` tasks: the golden (KernelBenchX's reference, so the suite runs `any-code`)
    and a copy whose outputs are 10% off."""
    goldens = kernelbenchx_goldens(checkout, work)
    breakable = [task for task, code in goldens.items() if off_by_a_tenth(code)]
    rows = []
    for task in spread(breakable, count):
        rows.append({"task": task, "id": f"{task}-ok", "code": without_glue(goldens[task])})
        rows.append({"task": task, "id": f"{task}-bad", "code": off_by_a_tenth(goldens[task])})
    return rows


def tritonbench_t_candidates(checkout: str, count: int, model: str) -> list:
    """2 x `count` lines of one model's TritonBench-T outputs (LLM_generated/), spread over the
    file; which of them are right is what keval finds."""
    outputs = pathlib.Path(checkout) / "LLM_generated" / "Bench_T_general_purpose" / f"output_{model}.jsonl"
    if not outputs.is_file():
        raise SystemExit(f"{outputs}: not found")
    return [json.loads(line) for line in spread(outputs.read_text().splitlines(), 2 * count)]


def judged(name: str, suite: str, rows: list, peer_format: bool, work: pathlib.Path, args) -> dict:
    """`keval run` on the rows: keval's JSONL, or with `peer_format` the peer's (KIND:FILE)."""
    subs = write_jsonl(work / f"{name}.jsonl", rows)
    out = work / f"out-{name}"
    seconds = run_keval(["run", "--suite", suite, "--submissions", f"{name}:{subs}" if peer_format else subs, "--out", out,
                         "--device", args.device, "--quiet", *shlex.split(args.keval_args)])
    verdicts = {r["id"]: r["verdict"] for r in results(out)}
    if args.write:  # for bench/job_seconds.py: where each job's time and memory went
        shutil.copy(out / "results.jsonl", pathlib.Path(args.write) / f"{name}-results.jsonl")
    return {"suite": name, "candidates": len(rows), "seconds": seconds,
            "steady": steady_seconds_per_candidate(out / "keval.db"),
            "passed": sum(v == "pass" for v in verdicts.values()),
            "correct_passed": sum(v == "pass" for i, v in verdicts.items() if i.endswith("-ok")),
            "broken_failed": sum(v != "pass" for i, v in verdicts.items() if i.endswith("-bad")),
            "verdicts": verdicts}


def line(figure: dict) -> str:
    n = figure["candidates"]
    steady = figure["steady"]
    # outside the steady span: start-up up to the first verdict, and the run's end after the last
    steady_text = (f"steady {steady[0] / steady[1]:.2f} s/candidate ({figure['seconds'] - steady[0]:.1f} s "
                   f"before the first verdict and after the last)") if steady else "steady: too few to tell"
    return (f"{figure['suite']:13s} {n:3d} candidates in {figure['seconds']:7.1f} s = "
            f"{figure['seconds'] / n:5.2f} s/candidate whole, {steady_text}; {figure['passed']} passed "
            f"(correct ones passed {figure['correct_passed']}, broken ones failed {figure['broken_failed']})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelbenchx", help="a KernelBenchX checkout")
    ap.add_argument("--tritonbench", help="a TritonBench checkout (its T set is used)")
    ap.add_argument("--core-tasks", default=",".join(CORE_TASKS), help="comma-separated; empty: no core part")
    ap.add_argument("--peer-tasks", type=int, default=8, help="tasks of each peer")
    ap.add_argument("--tritonbench-model", default="gpt-4o", help="whose LLM_generated T outputs")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--keval-args", default="", help="more `keval run` options (default: none)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--write", help="keep each suite's candidates in this folder")
    args = ap.parse_args(argv)
    work = pathlib.Path(tempfile.mkdtemp(prefix="keval-mixed-"))
    try:
        plan = []
        if args.core_tasks:
            plan.append(("core", str(REPO / "suites" / "keval"),
                         [row for task in args.core_tasks.split(",") for row in
                          ({"task": task, "id": f"{task}-ok", "code": variant(golden_code(task), 0)},
                           {"task": task, "id": f"{task}-bad", "code": variant(broken(golden_code(task)), 1)})]))
        if args.kernelbenchx:
            plan.append(("kernelbenchx", f"kernelbenchx:{args.kernelbenchx}:any-code",
                         kernelbenchx_candidates(args.kernelbenchx, args.peer_tasks, work)))
        if args.tritonbench:
            plan.append(("tritonbench-t", f"tritonbench-t:{args.tritonbench}",
                         tritonbench_t_candidates(args.tritonbench, args.peer_tasks, args.tritonbench_model)))
        if args.write:
            kept = pathlib.Path(args.write)
            kept.mkdir(parents=True, exist_ok=True)
            for name, _, rows in plan:
                write_jsonl(kept / f"{name}.jsonl", rows)
                if name == "kernelbenchx":  # its own format too, for its pipeline (bench/peer_throughput.py)
                    write_jsonl(kept / "kernelbenchx-own-format.jsonl",
                                [{"predict": r["code"], "file": f"{r['task']}.py", "id": r["id"]} for r in rows])
        figures = [judged(name, suite, rows, name == "tritonbench-t", work, args) for name, suite, rows in plan]
        for figure in figures:
            print(line(figure))
        n = sum(f["candidates"] for f in figures)
        seconds = sum(f["seconds"] for f in figures)
        spans = [f["steady"] for f in figures if f["steady"]]
        steady = (sum(s[0] for s in spans), sum(s[1] for s in spans)) if spans else None
        print(line({"suite": "all", "candidates": n, "seconds": seconds, "steady": steady,
                    "passed": sum(f["passed"] for f in figures),
                    "correct_passed": sum(f["correct_passed"] for f in figures),
                    "broken_failed": sum(f["broken_failed"] for f in figures)}))
        print(f"targets: steady <= 2 s/candidate, whole <= 3 s/candidate (device {args.device}, "
              f"keval args {args.keval_args or 'none'})")
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(figures, indent=1))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
