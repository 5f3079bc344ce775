"""python -m keval_generate COMMAND ... (called by `keval generate` and `keval run`).

    generate  --suite-folder DIR --suite-kind KIND [--task-names a,b] --model NAME --base-url URL
              --samples K --out FILE.jsonl --store FILE.db [--prompt MODE] [--temperature T]
              [--concurrency N] [--api-key-env VAR] [--corpus PATH] [--price-prompt P] [--price-completion P]
              [--prices FILE] [--top-p P] [--stop S]... [--n N] [--header "NAME: VALUE"]... [--stream]
              [--system-prompt TEXT] [--template NAME.vN] [--thinking-budget T] [--reasoning-effort E]
              [--turns N --judge-out DIR --judge-suite S --keval BIN [--judge-arg A]...]
    metrics   --input PAIRS.jsonl --output METRICS.jsonl

generate prints one JSON object; a bad input ends with one line naming the file or field, exit 2;
an interrupted generation (Ctrl-C, SIGTERM, SIGHUP) writes the samples that finished to --out
and exits 128 + the signal (130, 143, 129); the store keeps them, so a rerun continues."""
import argparse
import json
import os
import signal
import sys

from .errors import GenerateError, Stopped


def stop_on(signal_number, frame):
    raise Stopped(signal_number)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m keval_generate")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--suite-folder", required=True)
    g.add_argument("--suite-kind", default="keval")
    g.add_argument("--task-names", default="")
    g.add_argument("--model", required=True)
    g.add_argument("--base-url", required=True)
    g.add_argument("--samples", type=int, required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--store", required=True)
    g.add_argument("--prompt", default="zero-shot")
    g.add_argument("--temperature", type=float)
    g.add_argument("--max-tokens", type=int)
    g.add_argument("--concurrency", type=int, default=8)
    g.add_argument("--api-key-env", default=None)
    g.add_argument("--corpus")
    g.add_argument("--peer-checkout")
    g.add_argument("--price-prompt", type=float)
    g.add_argument("--price-completion", type=float)
    g.add_argument("--request-timeout", type=float, default=600.0)
    g.add_argument("--max-attempts", type=int, default=8)
    g.add_argument("--prices")                        # price_table.py
    g.add_argument("--top-p", type=float)
    g.add_argument("--stop", action="append")
    g.add_argument("--n", type=int, default=1)
    g.add_argument("--header", action="append")
    g.add_argument("--stream", action="store_true")
    g.add_argument("--system-prompt")
    g.add_argument("--template")                      # NAME.vN of prompts/, default the suite's family
    g.add_argument("--thinking-budget", type=int)
    g.add_argument("--reasoning-effort")
    g.add_argument("--turns", type=int, default=1)
    g.add_argument("--judge-out")                     # --turns > 1: where each turn is judged
    g.add_argument("--judge-suite")                   # the suite as keval run takes it
    g.add_argument("--keval")                         # the keval binary that judges
    g.add_argument("--judge-arg", dest="judge_args", action="append")  # passed to keval run
    m = sub.add_parser("metrics")
    m.add_argument("--input", required=True)
    m.add_argument("--output", required=True)
    return p


def main() -> int:
    args = parser().parse_args()
    signal.signal(signal.SIGTERM, stop_on)
    signal.signal(signal.SIGHUP, stop_on)
    try:
        if args.command == "generate":
            from .generate import generate
            args.api_key_env_given = args.api_key_env is not None
            result = generate(args)
        else:
            from .code_metrics import metrics, run_with_fixed_hash_seed
            run_with_fixed_hash_seed(sys.argv[1:])
            metrics(args)  # its caller reads --output; stdout stays the caller's (keval run's table)
            return 0
    except GenerateError as e:
        print(f"keval: {e}", file=sys.stderr, flush=True)
        os._exit(2)  # other requests in flight would otherwise run out their retries first
    except KeyboardInterrupt as e:
        number = e.signal_number if isinstance(e, Stopped) else signal.SIGINT
        print(f"keval: generate interrupted ({signal.Signals(number).name}); what arrived is stored, "
              "run the same command again to continue", file=sys.stderr, flush=True)
        os._exit(128 + number)  # requests in flight are abandoned; their threads must not hold the exit
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
