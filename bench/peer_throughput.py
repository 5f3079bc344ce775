"""keval beside KernelBenchX's own pipeline on the same candidates, one after the other on one
GPU (issue 19): wall seconds of each, including start-up, and their ratio.

    python bench/peer_throughput.py --checkout KERNELBENCHX --candidates FILE.jsonl --out DIR
        [--gpus 0] [--keval-args "--jobs 8"] [--skip-peer] [--any-code] [--device cpu]

FILE.jsonl is in KernelBenchX's own input format (what `scripts/run_eval.sh` reads; keval
reads it as `--submissions kernelbenchx:FILE`). keval runs with default settings unless
--keval-args says otherwise; KernelBenchX runs `bash scripts/run_eval.sh FILE DIR GPUS` from its
checkout; it keeps one candidate per file, so the ratio is of seconds per candidate each judged
(KernelBenchX's count from its summary.json). --any-code: keval judges code without a Triton
kernel (KernelBenchX's references) rather than answering no_kernel. Prints one line per
pipeline and the ratio; --json writes the figures.
"""
import argparse
import json
import os
import pathlib
import shlex
import sys

from common import KEVAL, REPO, timed


def candidates_in(path: pathlib.Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def peer_judged(out: pathlib.Path, default: int) -> int:
    """How many candidates KernelBenchX's pipeline judged: its summary's total (it keeps one
    candidate per file, so two of one task count once), else `default`."""
    try:
        return int(json.loads((out / "summary.json").read_text())["total"]) or default
    except (OSError, ValueError, KeyError, TypeError):
        return default


def keval_command(args, out: pathlib.Path) -> list:
    suite = f"kernelbenchx:{args.checkout}" + (":any-code" if args.any_code else "")
    return [KEVAL, "run", "--suite", suite, "--submissions",
            f"kernelbenchx:{args.candidates}", "--out", str(out), "--device", args.device,
            *(["--gpus", args.gpus] if args.device == "cuda" else []),
            "--quiet", *shlex.split(args.keval_args)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", required=True, type=pathlib.Path, help="KernelBenchX checkout")
    parser.add_argument("--candidates", required=True, type=pathlib.Path, help="KernelBenchX-format JSONL")
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--gpus", default="0")
    parser.add_argument("--device", default="cuda", help="cpu: a dry run of keval's side (with --skip-peer)")
    parser.add_argument("--keval-args", default="", help="extra `keval run` arguments")
    parser.add_argument("--skip-peer", action="store_true", help="time keval only")
    parser.add_argument("--any-code", action="store_true",
                        help="keval judges code without a Triton kernel too, as KernelBenchX does")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    needed = [(args.candidates, "--candidates")]
    if not args.skip_peer:
        needed.append((args.checkout / "scripts" / "run_eval.sh", "--checkout"))
    for path, what in needed:
        if not path.exists():
            print(f"peer_throughput: {what}: {path} does not exist", file=sys.stderr)
            return 2
    args.checkout, args.candidates = args.checkout.resolve(), args.candidates.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    n = candidates_in(args.candidates)
    figures = {"candidates": n}
    keval_s, keval_rc = timed(keval_command(args, args.out / "keval"), REPO, args.out / "keval.log")
    figures["keval"] = {"seconds": keval_s, "exit": keval_rc}
    print(f"keval        {keval_s:8.1f} s  {keval_s / n:6.2f} s per candidate  (exit {keval_rc})")
    if not args.skip_peer:
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=os.environ.get("CUDA_VISIBLE_DEVICES", args.gpus))
        peer_s, peer_rc = timed(["bash", "scripts/run_eval.sh", str(args.candidates), str(args.out / "kernelbenchx"),
                                 args.gpus], args.checkout, args.out / "kernelbenchx.log", env)
        peer_n = peer_judged(args.out / "kernelbenchx", n)
        figures["kernelbenchx"] = {"seconds": peer_s, "exit": peer_rc, "judged": peer_n}
        print(f"KernelBenchX {peer_s:8.1f} s  {peer_s / peer_n:6.2f} s per candidate  (exit {peer_rc}; "
              f"judged {peer_n} of {n})")
        figures["ratio"] = (peer_s / peer_n) / (keval_s / n) if keval_s else None
        print(f"ratio: keval is {figures['ratio']:.1f}x KernelBenchX's speed per candidate")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if keval_rc in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
