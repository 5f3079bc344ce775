"""python -m keval_dataset COMMAND ... (called by `keval dataset`, `keval predict`, `keval sweep`).

    export    --records RECORDS.jsonl --out DIR [--format parquet|jsonl] [--seed S] [--force] [--source DB]... [--suite DIR]...
              [--retime EXPORT_DIR] [--near-threshold T]
    rebuild   --from-export EXPORT_DIR --out DIR [--format F] [--seed S] [--force] [--suite DIR]... [--retime EXPORT_DIR] [--near-threshold T]
    import    --file FILE.parquet --out SUBS.jsonl [--problems DIR] [--sample N] [--seed S]
    train     --data EXPORT_DIR|train.parquet --model FILE [--compiled]
    eval      --data EXPORT_DIR|test.parquet --model FILE [--group full]
    noise     --first EXPORT_DIR --second EXPORT_DIR
    variants  --suite DIR --out SUBS.jsonl [--tasks GLOBS] [--submissions FILE] [--per-program N] [--seed S] [--no-golden]
    compile-rows   --data EXPORT_DIR --out ROWS.jsonl
    compile-cache  --data EXPORT_DIR|ROWS.jsonl --out CACHE_DIR [--workers N] [--deadline-s S]

Prints one JSON object; a bad input ends with one line naming the file and field, exit 2.
"""

import argparse
import json
import sys

from .errors import DatasetError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m keval_dataset")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("--records", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--format", default="parquet")
    e.add_argument("--seed", type=int, default=17)
    e.add_argument("--force", action="store_true")
    e.add_argument("--source", action="append", default=[])
    e.add_argument("--suite", action="append", default=[])
    r = sub.add_parser("rebuild")
    r.add_argument("--from-export", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--format", default="parquet")
    r.add_argument("--seed", type=int, default=17)
    r.add_argument("--force", action="store_true")
    r.add_argument("--suite", action="append", default=[])
    for command in (e, r):
        command.add_argument("--retime")
        command.add_argument("--near-threshold", type=float, default=None)
    i = sub.add_parser("import")
    i.add_argument("--file", required=True)
    i.add_argument("--out", required=True)
    i.add_argument("--problems")
    i.add_argument("--sample", type=int, default=0)
    i.add_argument("--seed", type=int, default=17)
    t = sub.add_parser("train")
    t.add_argument("--data", required=True)
    t.add_argument("--model", required=True)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--compiled", action="store_true", help="add the compiled-kernel features (docs/dataset.md)")
    v = sub.add_parser("eval")
    v.add_argument("--data", required=True)
    v.add_argument("--model", required=True)
    v.add_argument("--group", default="full")
    n = sub.add_parser("noise")
    n.add_argument("--first", required=True)
    n.add_argument("--second", required=True)
    w = sub.add_parser("variants")
    w.add_argument("--suite", required=True)
    w.add_argument("--out", required=True)
    w.add_argument("--tasks")
    w.add_argument("--submissions")
    w.add_argument("--per-program", type=int, default=24)
    w.add_argument("--no-golden", action="store_true")
    w.add_argument("--seed", type=int, default=17)
    cr = sub.add_parser("compile-rows", help="the columns compile-cache reads, as JSON lines (no pyarrow needed then)")
    cr.add_argument("--data", required=True)
    cr.add_argument("--out", required=True)
    cc = sub.add_parser("compile-cache", help="dry launches and compiled kernels into a $KEVAL_FEATURE_CACHE folder")
    cc.add_argument("--data", required=True, help="an export folder, or compile-rows' JSON lines")
    cc.add_argument("--out", required=True, help="the cache folder (resumed when it holds a cache)")
    cc.add_argument("--workers", type=int, default=0, help="children at once (default: the CPU count)")
    cc.add_argument("--deadline-s", type=float, default=0.0, help="stop after this many seconds (default: none)")
    return p


def _threshold(args) -> float:
    from .near_duplicates import DEFAULT_THRESHOLD
    return DEFAULT_THRESHOLD if args.near_threshold is None else args.near_threshold


def run(args) -> dict:
    if args.command == "export":
        from .export import export
        return export(args.records, args.out, args.format, args.seed, args.force, args.source, args.suite,
                      args.retime, _threshold(args))
    if args.command == "rebuild":
        from .rebuild import rebuild
        return rebuild(args.from_export, args.out, args.format, args.seed, args.force, args.suite, args.retime,
                       _threshold(args))
    if args.command == "import":
        from .makora_import import import_rows
        problems = args.problems or (args.out[:-6] if args.out.endswith(".jsonl") else args.out) + "-problems"
        return import_rows(args.file, args.out, problems, args.sample, args.seed)
    if args.command == "train":
        from .predictor import train
        return train(args.data, args.model, args.seed, args.compiled)
    if args.command == "eval":
        from .predictor import evaluate
        return evaluate(args.data, args.model, args.group)
    if args.command == "noise":
        from .noise_ceiling import noise_ceiling
        return noise_ceiling(args.first, args.second)
    if args.command == "compile-rows":
        from .program_rows import export as export_rows
        return export_rows(args.data, args.out)
    if args.command == "compile-cache":
        from .compile_cache import build
        return build(args.data, args.out, args.workers, args.deadline_s)
    from .variants import sweep_submissions
    return sweep_submissions(args.suite, args.out, args.per_program, args.seed, args.tasks, args.submissions,
                             goldens=not args.no_golden)


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        print(json.dumps(run(args), indent=2))
    except DatasetError as e:
        print(str(e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
