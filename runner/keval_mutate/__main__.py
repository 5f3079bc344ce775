"""python -m keval_mutate COMMAND ... (called by `keval mutate`).

    generate  --out DIR --golden TASK=PATH [--golden ...] [--operators a,b]
              writes DIR/mutants.jsonl (submissions) and DIR/mutants.index.json
    report    --out DIR [--equivalence-trials N] [--equivalence-seed S] [--equivalence-budget-s B] [--suite S]
              [--interrupted]
              reads DIR/mutants.index.json and DIR/results.jsonl; runs every survivor through
              the differential check (N drawn trials beside the anchored ones; 0: no check);
              writes DIR/mutants.json and .md. --interrupted: keval's run was stopped, so the
              report is partial and runs no check. Ctrl-C (SIGTERM, SIGHUP) during the check
              stops it, writes the report marked partial and exits 128 + the signal
    differential --task-dir D --out DIR --mutant ID=PATH [--mutant ...] [--trials N] [--seed S]
              the differential check itself (TRITON_INTERPRET=1): DIR/<id>.json per mutant
    peer-kills --mutants DIR [--mutants ...] --peer KIND:CHECKOUT [--peer ...] --out DIR
              [--tasks GLOB] [--suite S] [--pairs FILE] [--device cpu|cuda|auto] [--timeout S]
              [--jobs N] [--python PY]
              the counted mutants of keval mutate runs (a later DIR's task replaces an earlier
              one's) judged by each peer's own check where a task pairs with a peer task
              (peer_pairs.toml); --suite: where the goldens are when a run's are gone; prints
              the table, writes DIR/peer_kills.json and .md
    operators lists the operators and the bug each models

Each prints a line or two; a bad input ends with one line naming the file or field, exit 2."""
import argparse
import sys

from .errors import MutateError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m keval_mutate")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--out", required=True)
    g.add_argument("--golden", action="append", default=[], required=True)
    g.add_argument("--operators", default="")
    r = sub.add_parser("report")
    r.add_argument("--out", required=True)
    r.add_argument("--equivalence-trials", type=int, default=42)
    r.add_argument("--equivalence-seed", type=int, default=41)
    r.add_argument("--equivalence-budget-s", type=float, default=900.0)
    r.add_argument("--interrupted", action="store_true")
    r.add_argument("--suite", default="", help="this machine's suite folder, for a run judged on another machine")
    d = sub.add_parser("differential")
    d.add_argument("--task-dir", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--mutant", action="append", required=True)
    d.add_argument("--trials", type=int, default=42)
    d.add_argument("--seed", type=int, default=41)
    d.add_argument("--budget-s", type=float, default=900.0)
    k = sub.add_parser("peer-kills")
    k.add_argument("--mutants", action="append", required=True)
    k.add_argument("--peer", action="append", required=True)
    k.add_argument("--out", required=True)
    k.add_argument("--tasks", default="")
    k.add_argument("--suite", default="")
    k.add_argument("--pairs", default="")
    k.add_argument("--device", default="cpu", choices=["cpu", "cuda", "auto"])
    k.add_argument("--timeout", type=float, default=300.0)
    k.add_argument("--jobs", type=int, default=1)
    k.add_argument("--python", default=sys.executable)
    sub.add_parser("operators")
    return p


def parse_mutant(spec: str) -> tuple:
    mutant_id, sep, path = spec.partition("=")
    if not sep or not mutant_id or not path:
        raise MutateError("--mutant", f"{spec!r} is not ID=PATH")
    return mutant_id, path


def run_peer_kills(args) -> None:
    from .mutate_output import read_mutate_outputs
    from .peer_judge import PeerRun
    from .peer_kills import measure, parse_peer, task_filter, write_report
    from .peer_pairs import DEFAULT, load_pairs

    peers = dict(parse_peer(p) for p in args.peer)
    pairs = load_pairs(args.pairs or DEFAULT)
    tasks = read_mutate_outputs(args.mutants, task_filter(args.tasks, pairs, peers), args.suite)
    if not tasks:
        raise MutateError("--mutants", "no task of these runs pairs with a task of the peers given")
    report = measure(tasks, pairs, peers, args.out, PeerRun(args.python, args.device, args.timeout, args.jobs))
    print(write_report(report, args.out), end="")
    print(f"wrote {args.out}/peer_kills.json and {args.out}/peer_kills.md")


def main() -> int:
    args = parser().parse_args()
    try:
        if args.command == "generate":
            from .generate import choose_operators, generate, parse_golden
            index = generate([parse_golden(g) for g in args.golden], args.out, choose_operators(args.operators))
            invalid = sum(1 for m in index["mutants"] if m["invalid"])
            print(f"made {len(index['mutants'])} mutants of {len(index['tasks'])} task(s)"
                  + (f" ({invalid} do not compile: counted apart, not run)" if invalid else ""))
        elif args.command == "report":
            from .report import write_report
            from .stopping import StopSignals
            stops = StopSignals()
            report = write_report(args.out, args.equivalence_trials, args.equivalence_seed,
                                  args.equivalence_budget_s, args.interrupted, stops, args.suite)
            s = report["suite"]
            rate = "-" if s["kill_rate"] is None else f"{100 * s['kill_rate']:.1f}%"
            print(f"kill rate {rate} of the non-equivalent: {s['killed']} killed, {s['survived']} survived, "
                  f"{s['equivalent']} equivalent, {s['invalid']} invalid, {s['unjudged']} unjudged of "
                  f"{s['made']} mutants")
            for task, t in report["tasks"].items():
                for survivor in t["survivors"]:
                    print(f"  survived: {survivor['id']} (line {survivor['line']}): {survivor['equivalence']}")
                for survivor in t["equivalents"]:
                    print(f"  equivalent: {survivor['id']} (line {survivor['line']}): {survivor['evidence_file']}")
                if t.get("note"):
                    print(f"  {task}: {t['note']}")
            print(f"wrote {args.out}/mutants.json and {args.out}/mutants.md"
                  + (" (partial: see there)" if report["partial"] else ""), flush=True)
            if stops.number:
                said = (f"{args.out}/mutants.md is partial: {report['partial']}" if report["partial"]
                        else f"{args.out}/mutants.md is complete")
                print(f"keval: interrupted ({stops.name}); every judged mutant is stored in {args.out}/keval.db; "
                      f"{said}", file=sys.stderr, flush=True)
                return 128 + stops.number
        elif args.command == "differential":
            from .differential import check
            mutants = [parse_mutant(m) for m in args.mutant]
            evidence = check(args.task_dir, mutants, args.out, args.trials, args.seed, args.budget_s)
            for e in evidence.values():
                print(f"{e['id']}: {e['verdict']}")
        elif args.command == "peer-kills":
            run_peer_kills(args)
        else:
            from .operators import OPERATORS
            for op in OPERATORS:
                print(f"{op.name}: {op.models}")
    except MutateError as exc:
        print(f"keval: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
