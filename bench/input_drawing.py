"""What drawing a task's benchmark inputs costs, per submission, before and after input sharing.

Before: each of a submission's three jobs (candidate, reference, timing) drew every (case,
dtype, seed) input set on the CPU itself. Now the zygote draws each set once, on several
threads, and the jobs inherit them. Runs the task's own make_inputs (CPU only, no GPU needed).
This is CPU mode's path since session 3: on a GPU each job draws its inputs there (inputs.py).

    python bench/input_drawing.py [--task vector_add] [--threads N]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runner"))

from keval_runner.inputs import inputs  # noqa: E402
from keval_runner.inputs.shared_inputs import DRAW_THREADS, SharedInputs  # noqa: E402

import tomllib  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def benchmark_plan(task: str, seeds: int) -> list:
    with open(os.path.join(REPO, "suites", "keval", task, "task.toml"), "rb") as f:
        toml = tomllib.load(f)
    planned = []
    for case in toml["cases"]:
        if case.get("small"):
            continue
        for dtype in case.get("dtypes", toml["dtypes"]):
            planned.append({"name": case["name"], "params": case["params"], "dtype": dtype,
                            "seeds": [1000 + s for s in range(seeds)]})
    return planned


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", default="vector_add")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=DRAW_THREADS)
    args = parser.parse_args()
    task_dir = os.path.join(REPO, "suites", "keval", args.task)
    cases = benchmark_plan(args.task, args.seeds)
    pairs = [(c, s) for c in cases for s in c["seeds"]]
    make_inputs = SharedInputs()._make_inputs(task_dir)

    def one_job():  # a job's own draws (its memo starts empty)
        inputs._MEMO.clear()
        for case, seed in pairs:
            inputs._made_inputs(make_inputs, case, seed)

    one_job()  # warm-up: the first draws also pay for fresh pages, which would favour "after"
    per_job = timed(one_job)
    inputs._MEMO.clear()
    serial = timed(lambda: inputs.prebuild(make_inputs, pairs, threads=1))
    inputs._MEMO.clear()
    threaded = timed(lambda: inputs.prebuild(make_inputs, pairs, threads=args.threads))
    size = sum(inputs._bytes_of(a) for a in inputs._MEMO.values())
    print(f"task {args.task}: {len(pairs)} input sets (benchmark cases x dtypes x {args.seeds} seeds), "
          f"{size / 2**30:.2f} GiB; {os.cpu_count()} CPUs")
    print(f"before (3 jobs each drawing):       {3 * per_job:7.2f} s per submission "
          f"(one job: {per_job:.2f} s; the timing job draws only the benchmark cases)")
    print(f"zygote, drawn once on 1 thread:      {serial:7.2f} s")
    print(f"zygote, drawn once on {args.threads} threads:     {threaded:7.2f} s "
          f"({3 * per_job / threaded:.1f}x less than before)")
    print("later submissions of the task on the same slot: 0 s (already drawn)")


if __name__ == "__main__":
    main()
