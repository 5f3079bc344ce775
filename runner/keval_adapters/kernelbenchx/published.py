"""KernelBenchX's published golden timings beside keval's own measurement of the same inputs.

KernelBenchX ships `metrics/golden_results/<gpu>/<stem>.json`: for each GPU it was run on
(folders such as `4090`, `a100`, `h800`), a list with one entry per input of the task's perf
template, `{"input_size", "ms", "GB/s", "TFLOPS"}`, in the template's order. keval's
kernelbenchx task `<stem>` has a case `perf_<i>` for the template's i-th input, so entry i and
case perf_i are the same input. For a keval run's results this lists, per perf case, the
published time on the GPU in use (or one chosen with --gpu) beside keval's time of the golden
(KernelBenchX's reference implementation, measured in the same run) and of the submission.
"""

import json
import os
import re

from ..common.errors import AdapterError
from ..common.judges_report import read_results

GOLDEN_RESULTS = os.path.join("metrics", "golden_results")
PERF_CASE = re.compile(r"^perf_(\d+)$")


def published_gpus(root: str) -> list:
    folder = os.path.join(root, GOLDEN_RESULTS)
    if not os.path.isdir(folder):
        return []
    return sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)))


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def choose_gpu(root: str, device_name: str, requested: str = "") -> str:
    """The golden_results folder to show: `requested` (it must exist), else the one whose name
    is in the device's name ("NVIDIA H800" -> h800, "NVIDIA GeForce RTX 4090" -> 4090), else ""."""
    gpus = published_gpus(root)
    if requested:
        if requested not in gpus:
            raise AdapterError(f"--gpu {requested}: KernelBenchX has no golden results for it "
                               f"(it has: {', '.join(gpus) or 'none'})")
        return requested
    device = _squash(device_name or "")
    matches = [g for g in gpus if _squash(g) and _squash(g) in device]
    return max(matches, key=len) if matches else ""


def published_ms(root: str, gpu: str, stem: str):
    """The published times of `stem`'s perf inputs on `gpu` (a list, None where an entry has
    no time), or None when there is no file for it."""
    path = os.path.join(root, GOLDEN_RESULTS, gpu, f"{stem}.json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        raise AdapterError(f"{path}: not readable as JSON ({e})")
    if not isinstance(entries, list):
        raise AdapterError(f"{path}: expected a list of timings")
    return [e.get("ms") if isinstance(e, dict) and isinstance(e.get("ms"), (int, float)) else None
            for e in entries]


def device_of_run(results_path: str) -> str:
    """The GPU name in the summary.json beside results.jsonl, or ""."""
    summary = os.path.join(os.path.dirname(os.path.abspath(results_path)), "summary.json")
    try:
        with open(summary) as f:
            return str(json.load(f).get("environment", {}).get("gpu") or "")
    except (OSError, ValueError, AttributeError):
        return ""


def rows(root: str, results_path: str, gpu: str) -> list:
    """One row per timed perf case of the results: task, case, keval's submission and golden
    times, the published time on `gpu` (None where there is none)."""
    out = []
    published = {}  # task -> its published times, read once however many submissions it has
    for result in read_results(results_path).values():
        task = result.get("task", "")
        if task not in published:
            published[task] = published_ms(root, gpu, task) if gpu else None
        times = published[task]
        for case in result.get("cases") or []:
            match = PERF_CASE.match(str(case.get("case", "")))
            if not match or case.get("time_ms") is None:
                continue
            index = int(match.group(1))
            out.append({"id": result.get("id"), "task": task, "case": case["case"],
                        "dtype": case.get("dtype"), "keval_ms": case.get("time_ms"),
                        "keval_golden_ms": case.get("ref_time_ms"),
                        "published_ms": times[index] if times is not None and index < len(times) else None})
    return out


def print_table(table: list, gpu: str, device: str) -> None:
    shown = gpu or "none"
    print(f"published: KernelBenchX golden_results/{shown}; keval: {device or 'the run'}")
    print(f"{'task':28s} {'case':8s} {'published ms':>13s} {'keval golden ms':>16s} {'keval ms':>10s}")
    for row in table:
        published = "-" if row["published_ms"] is None else f"{row['published_ms']:.4f}"
        golden = "-" if row["keval_golden_ms"] is None else f"{row['keval_golden_ms']:.4f}"
        print(f"{row['task'][:28]:28s} {row['case']:8s} {published:>13s} {golden:>16s} {row['keval_ms']:10.4f}")
    if not gpu:
        print("no golden results for this GPU: choose one with --gpu")


def configure(parser) -> None:
    parser.add_argument("--suite", required=True, help="the KernelBenchX checkout")
    parser.add_argument("--results", required=True, help="results.jsonl of a keval run on its tasks")
    parser.add_argument("--gpu", default="", help="golden_results folder to show (default: the run's GPU)")
    parser.add_argument("--out", default="", help="also write the rows as JSON here")


def run(args) -> int:
    if not os.path.exists(args.results):
        raise AdapterError(f"--results {args.results} does not exist")
    gpus = published_gpus(args.suite)
    if not gpus:
        raise AdapterError(f"--suite {args.suite}: no {GOLDEN_RESULTS} folder with GPU results")
    device = device_of_run(args.results)
    gpu = choose_gpu(args.suite, device, args.gpu)
    table = rows(args.suite, args.results, gpu)
    print_table(table, gpu, device)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"gpu": gpu, "device": device, "available": gpus, "rows": table}, f, indent=1)
    return 0
