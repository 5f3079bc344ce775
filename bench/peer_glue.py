"""Host time of one timed call through a peer suite's glue (issue 19). Every timing sample of a
KernelBenchX or TritonBench performance case calls the peer's `call_op` through keval's glue
(seeding, unflattening, flattening) on both sides, and the launch cover before the call is
fitted to how long the host takes to enqueue it. Prints, per task, microseconds per call of the
reference through the glue as it is, and with `torch.manual_seed` as the glue's seeding (the
glue before c1030d8): that call formats a stack for each backend not started.
    python bench/peer_glue.py --kernelbenchx CHECKOUT --tritonbench CHECKOUT [--tasks 8]
        [--calls 300] [--device cpu]
"""
import argparse
import contextlib
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib

from common import REPO, keval_python
from mixed_workload import spread

sys.path.insert(0, str(REPO / "runner"))


def adapted(kind: str, checkout: str, out: pathlib.Path) -> pathlib.Path:
    done = subprocess.run([keval_python(), "-m", "keval_adapters", kind, "suite", "--source", checkout,
                           "--out", str(out)], env=dict(os.environ, PYTHONPATH=str(REPO / "runner")),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{kind}: the adapter failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return out


def perf_case(task: pathlib.Path):
    """The task's first timed case ({name, params}, dtype), or None when it has only its test:
    the peers list their inputs smallest first."""
    spec = tomllib.loads((task / "task.toml").read_text())
    for case in spec["cases"]:
        if not case.get("small"):
            return {"name": case["name"], **case["params"]}, (case.get("dtypes") or spec["dtypes"])[0]
    return None


def old_seeding(module):
    """A context in which the glue of `module` seeds through torch.manual_seed."""
    import torch

    if hasattr(module, "_keval_tb_seed"):  # TritonBench: the runtime is inlined in reference.py
        direct = module._keval_tb_seed

        def seed(value):
            direct(value)
            torch.manual_seed(int(value))
        return _swapped(module, "_keval_tb_seed", seed)
    runtime = sys.modules[type(module._keval_kbx_task).__module__]
    direct = runtime.seed_rngs

    def seed(value):
        direct(value)
        torch.manual_seed(value)
    return _swapped(runtime, "seed_rngs", seed)


@contextlib.contextmanager
def _swapped(owner, name, value):
    kept = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, kept)


def microseconds_per_call(call, calls: int) -> float:
    """The best of three rounds of up to `calls` calls, each round about half a second at most."""
    start = time.perf_counter()
    for _ in range(3):
        call()
    calls = max(5, min(calls, int(0.5 / max((time.perf_counter() - start) / 3, 1e-9))))
    rounds = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        rounds.append((time.perf_counter() - start) / calls * 1e6)
    return min(rounds)


def measure(suite: pathlib.Path, label: str, count: int, calls: int, device: str) -> list:
    import torch

    from keval_adapters.common.module_file import load_module
    from keval_runner.inputs.inputs import torch_dtype

    tasks = [t for t in sorted(p.parent for p in suite.glob("*/task.toml")) if perf_case(t)]
    rows = []
    for task in spread(tasks, count):
        case, dtype = perf_case(task)
        try:
            module = load_module(str(task / "reference.py"), f"keval_bench_glue_{label}_{task.name}")
            with torch.device(device):
                args = module.make_inputs(case, torch_dtype(dtype), 1)
            args = tuple(a.to(device) if isinstance(a, torch.Tensor) else a for a in args)
            sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
            call = lambda: (module.reference(*args), sync())  # noqa: E731
            now = microseconds_per_call(call, calls)
            with old_seeding(module):
                before = microseconds_per_call(call, calls)
        except Exception as exc:  # noqa: BLE001 - a task the CPU cannot run is left out
            print(f"{label:13s} {task.name:28s} left out: {type(exc).__name__}: {str(exc)[:100]}", flush=True)
            continue
        rows.append((task.name, now, before))
        print(f"{label:13s} {task.name:28s} {now:9.1f} us a call, {before:9.1f} us with torch.manual_seed", flush=True)
    if rows:
        print(f"{label:13s} median over {len(rows)} tasks: {statistics.median(r[1] for r in rows):.1f} us a call, "
              f"{statistics.median(r[2] for r in rows):.1f} us with torch.manual_seed; the seeding's own cost "
              f"{statistics.median(r[2] - r[1] for r in rows):.1f} us a call (median difference)")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelbenchx", help="a KernelBenchX checkout")
    parser.add_argument("--tritonbench", help="a TritonBench checkout (its T set)")
    parser.add_argument("--tasks", type=int, default=8, help="tasks of each peer")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    if args.device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    with tempfile.TemporaryDirectory(prefix="keval-glue-") as work:
        for kind, checkout in (("kernelbenchx", args.kernelbenchx), ("tritonbench-t", args.tritonbench)):
            if checkout:
                measure(adapted(kind, checkout, pathlib.Path(work) / kind), kind, args.tasks, args.calls, args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
