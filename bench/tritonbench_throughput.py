"""keval beside TritonBench-T's own evaluation on the same candidates, one after the other on
one GPU (issue 19): wall seconds of each, including start-up, and their ratio.

    python bench/tritonbench_throughput.py --checkout TRITONBENCH --out DIR
        [--candidates FILE.jsonl | --model gpt-4o --count 8] [--python PY] [--driver PY]
        [--keval-args "..."] [--skip-peer] [--skip-keval] [--device cuda]

The candidates are TritonBench's own format (LLM_generated/'s lines: `instruction`, `predict`);
by default 2 x --count lines of one model's published T outputs, spread over the file (as
bench/mixed_workload.py takes them). keval runs `keval run --suite tritonbench-t:CHECKOUT` at
default settings. TritonBench runs its own steps from a copy of its scripts in DIR (the
checkout is never written): EVAL/eval_T/0_call_acc.py (each candidate with its test, one
Python process each), 1_exe_acc.py (each that ran, and its gold file, compared by stdout),
performance_metrics/perf_T/run_bench/write_file.py (a perf script per candidate that passed),
each perf script run as run_bench/multiprocess_gpu_run.py runs it (`python SCRIPT` with one
GPU visible, 600 s each) and EVAL/eval_T/2_efficiency.py. As shipped the scripts do not run
from a checkout, so the copies get: the Python (`py_interpreter`, a path on its authors'
machine), the T descriptions' file (`statis_path` names data/TritonBench_T_v1.json; the
checkout has data/TritonBench_T_v1.jsonl), the T tests' folder (`py_folder` names G's) and
the gold folders as absolute paths. The perf scripts run in a loop here, not through
multiprocess_gpu_run.py, which needs tqdm and assumes 8 GPUs. 0_call_acc.py needs Python 3.12
or newer (`--driver`); the candidates run under `--python` (torch and Triton). On a machine
without a GPU TritonBench's tests fail at their first CUDA tensor: a dry run of the plumbing,
not a figure.
"""
import argparse
import json
import os
import pathlib
import re
import shlex
import shutil
import sys

from common import KEVAL, REPO, keval_python, timed, write_jsonl
from mixed_workload import tritonbench_t_candidates

PERF_TIMEOUT_S = 600  # run_bench/multiprocess_gpu_run.py's own
LOG_TAIL_LINES = 25


def patched(source: pathlib.Path, target: pathlib.Path, constants: dict) -> None:
    """`source` copied to `target` with each module-level `NAME = ...` line of `constants`
    set to its value; a constant the script lacks is an error (the checkout changed)."""
    text = source.read_text(encoding="utf-8")
    for name, value in constants.items():
        text, count = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", text, count=1, flags=re.M)
        if not count:
            raise SystemExit(f"tritonbench_throughput: {source}: no `{name} = ...` line to set")
    target.write_text(text, encoding="utf-8")


def kept_files(folder: pathlib.Path) -> list:
    return sorted(p.name for p in folder.glob("*.py")) if folder.is_dir() else []


def keval_counts(results: pathlib.Path) -> dict:
    """How many of keval's results ran (call accuracy), were correct (execution accuracy) and
    got a speedup: the same counts as TritonBench's steps give."""
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.is_file() else []
    return {"ran": sum(1 for r in rows if r.get("call")), "correct": sum(1 for r in rows if r.get("exec")),
            "timed": sum(1 for r in rows if r.get("speedup"))}


def tritonbench_steps(checkout: pathlib.Path, candidates: pathlib.Path, work: pathlib.Path, args) -> dict:
    """TritonBench-T's own evaluation of `candidates`, step by step: seconds and counts."""
    eval_dir, perf_dir = work / "eval_T", work / "perf_T"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(checkout / "performance_metrics" / "perf_T", perf_dir)
    eval_dir.mkdir(parents=True)
    data = checkout / "data"
    patched(checkout / "EVAL" / "eval_T" / "0_call_acc.py", eval_dir / "0_call_acc.py",
            {"statis_path": str(data / "TritonBench_T_v1.jsonl"), "py_folder": str(data / "TritonBench_T_v1") + "/",
             "py_interpreter": args.python})
    patched(checkout / "EVAL" / "eval_T" / "1_exe_acc.py", eval_dir / "1_exe_acc.py",
            {"gold_folder": str(data / "TritonBench_T_v1") + "/", "py_interpreter": args.python})
    patched(checkout / "EVAL" / "eval_T" / "2_efficiency.py", eval_dir / "2_efficiency.py",
            {"ref_folder": str(checkout / "performance_metrics" / "perf_T" / "golden_results")})
    call_dir, results_dir, log = work / "call", work / "perf_results", work / "tritonbench.log"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=args.gpu)
    steps = {}
    steps["call"] = timed([args.driver, "0_call_acc.py", "--source", str(candidates), "--target", str(call_dir),
                           "--GPUs", args.gpu], eval_dir, log, env, mode="a")
    ran = kept_files(call_dir)
    steps["exe"] = timed([args.driver, "1_exe_acc.py", "--folder", str(call_dir), "--GPUs", args.gpu],
                         eval_dir, log, env, mode="a") if ran else (0.0, 0)
    correct = kept_files(call_dir)
    seconds, rc = 0.0, 0
    if correct:
        seconds, rc = timed([args.driver, "run_bench/write_file.py", "--input_folder_path", str(call_dir),
                             "--results_path", str(results_dir)], perf_dir, log, env, mode="a")
        # the loop of run_bench/multiprocess_gpu_run.py with one GPU: `python SCRIPT` from perf_T/
        python_dir = work / "bin"
        python_dir.mkdir(exist_ok=True)
        # a script, not a link: a virtual environment's Python run through a link elsewhere
        # does not find its environment (no torch: each perf script failed at once)
        python = python_dir / "python"
        python.write_text(f"#!/bin/sh\nexec {shlex.quote(args.python)} \"$@\"\n")
        python.chmod(0o755)
        perf_env = dict(env, PATH=f"{python_dir}:{env.get('PATH', '')}")
        for script in sorted((perf_dir / "tmp").glob("*.py")):
            spent, _ = timed(["python", str(script.relative_to(perf_dir))], perf_dir, log, perf_env, PERF_TIMEOUT_S, mode="a")
            seconds += spent
    steps["perf"] = (seconds, rc)
    steps["efficiency"] = timed([args.driver, "2_efficiency.py", "--gen_folder", str(results_dir)],
                                eval_dir, log, env, mode="a") if results_dir.is_dir() else (0.0, 0)
    return {"steps": {name: {"seconds": s, "exit": rc} for name, (s, rc) in steps.items()},
            "seconds": sum(s for s, _ in steps.values()), "ran": len(ran), "correct": len(correct),
            "timed": len(list(results_dir.glob("*.json"))) if results_dir.is_dir() else 0}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", required=True, type=pathlib.Path, help="TritonBench checkout")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--candidates", type=pathlib.Path, help="TritonBench-format JSONL (default: --model's)")
    parser.add_argument("--model", default="gpt-4o", help="whose LLM_generated T outputs, without --candidates")
    parser.add_argument("--count", type=int, default=8, help="2 x this many lines, without --candidates")
    parser.add_argument("--python", default=None, help="runs the candidates (default: keval's Python)")
    parser.add_argument("--driver", default=sys.executable, help="runs TritonBench's scripts (3.12 or newer)")
    parser.add_argument("--gpu", default="0")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--keval-args", default="", help="extra `keval run` arguments")
    parser.add_argument("--skip-peer", action="store_true", help="time keval only")
    parser.add_argument("--skip-keval", action="store_true", help="time TritonBench only")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    for needed in (checkout / "EVAL" / "eval_T" / "0_call_acc.py", checkout / "data" / "TritonBench_T_v1.jsonl"):
        if not needed.is_file():
            print(f"tritonbench_throughput: --checkout: {needed} does not exist", file=sys.stderr)
            return 2
    args.python = args.python or keval_python()
    args.python = os.path.abspath(shutil.which(args.python) or args.python)  # the scripts run it from elsewhere
    args.out.mkdir(parents=True, exist_ok=True)
    if args.candidates:
        candidates = args.candidates.resolve()
        if not candidates.is_file():
            print(f"tritonbench_throughput: --candidates: {candidates} does not exist", file=sys.stderr)
            return 2
    else:
        candidates = write_jsonl(args.out / "candidates.jsonl", tritonbench_t_candidates(str(checkout), args.count, args.model))
    n = sum(1 for line in candidates.read_text().splitlines() if line.strip())
    figures = {"candidates": n}
    if not args.skip_keval:
        command = [KEVAL, "run", "--suite", f"tritonbench-t:{checkout}", "--submissions", f"tritonbench-t:{candidates}",
                   "--out", str(args.out / "keval"), "--device", args.device, "--quiet", *shlex.split(args.keval_args)]
        env = dict(os.environ, KEVAL_PYTHON=args.python)
        seconds, rc = timed(command, REPO, args.out / "keval.log", env)
        judged = keval_counts(args.out / "keval" / "results.jsonl")
        figures["keval"] = {"seconds": seconds, "exit": rc, **judged}
        print(f"keval       {seconds:8.1f} s  {seconds / n:6.2f} s per candidate  (exit {rc}; ran {judged['ran']}, "
              f"correct {judged['correct']}, timed {judged['timed']} of {n})")
    if not args.skip_peer:
        peer = tritonbench_steps(checkout, candidates, args.out / "tritonbench", args)
        figures["tritonbench"] = peer
        steps = ", ".join(f"{name} {step['seconds']:.1f} s (exit {step['exit']})" for name, step in peer["steps"].items())
        print(f"TritonBench {peer['seconds']:8.1f} s  {peer['seconds'] / n:6.2f} s per candidate  ({steps}; "
              f"ran {peer['ran']}, correct {peer['correct']}, timed {peer['timed']} of {n})")
        if any(step["exit"] != 0 for step in peer["steps"].values()) or peer["timed"] < peer["correct"]:
            log = args.out / "tritonbench" / "tritonbench.log"
            print(f"a step failed or left a correct candidate untimed; the end of {log}:")
            print("\n".join(log.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:]))
    if "keval" in figures and "tritonbench" in figures and figures["keval"]["seconds"]:
        figures["ratio"] = figures["tritonbench"]["seconds"] / figures["keval"]["seconds"]
        print(f"ratio: keval is {figures['ratio']:.1f}x TritonBench's speed per candidate")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
