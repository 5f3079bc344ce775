"""One refinement turn's answers judged by `keval run` itself (the same binary: the same judge,
process pool and result cache), in JUDGE_OUT/turn-<t>/. A finished judging of the same answers
is reused. An unfinished one (keval killed while judging) is set aside and judged again: the kill
reaches the runner too, and keval run may have stored that job as a `crash` verdict, which a
resume would reuse as the answer's verdict and its feedback."""
import json
import os
import shutil
import signal
import subprocess
import sys

from .errors import GenerateError
from .samples import write_jsonl

STOP_GRACE_S = 60  # how long a stopped keval run may take to write what it judged


def judged_results(folder: str, ids: set) -> dict | None:
    """The finished judging in `folder` (every id judged, the run not interrupted), else None."""
    try:
        with open(os.path.join(folder, "summary.json"), encoding="utf-8") as f:
            if json.load(f).get("interrupted"):
                return None
        with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as f:
            results = {r["id"]: r for r in map(json.loads, f) if r.get("id") in ids}
    except (OSError, ValueError):
        return None
    return results if set(results) == ids else None


def file_named_from_judge_out(results: dict, submissions: str, judge_out: str) -> dict:
    """`results` with the turn's submissions file named as JUDGE_OUT names it (`turn-<t>.jsonl`)
    in their reasons: a bad_submission's reason starts with the file and line it came from, and
    the reasons become the model's next feedback and the output's records, which must not carry
    the folders of the machine that ran keval."""
    name = os.path.relpath(submissions, judge_out)
    for result in results.values():
        result["reasons"] = [reason.replace(submissions, name) for reason in result.get("reasons") or []]
    return results


def run_judge(command: list) -> int:
    """keval run's exit status. Stopped here (Ctrl-C, SIGTERM), it gets a SIGINT of its own, the
    signal it stops cleanly on, and this waits for it: no judging outlives the generation."""
    process = subprocess.Popen(command, stdout=sys.stderr)
    try:
        return process.wait()
    except BaseException:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise


def judge(args, turn: int, lines: list) -> dict:
    """keval run on one turn's answers; reuses a finished judging of the same answers."""
    folder = os.path.join(args.judge_out, f"turn-{turn}")
    submissions = os.path.join(args.judge_out, f"turn-{turn}.jsonl")
    ids = {line["id"] for line in lines}
    done = judged_results(folder, ids)
    if done is not None:
        print(f"keval generate: turn {turn} already judged in {folder}", file=sys.stderr, flush=True)
        return file_named_from_judge_out(done, submissions, args.judge_out)
    if os.path.exists(folder):
        aside = folder + ".unfinished"
        shutil.rmtree(aside, ignore_errors=True)
        os.replace(folder, aside)
        print(f"keval generate: turn {turn}'s judging was cut short; judging it again ({aside} kept)",
              file=sys.stderr, flush=True)
    os.makedirs(args.judge_out, exist_ok=True)
    write_jsonl(submissions, lines)
    command = [args.keval, "run", "--suite", args.judge_suite, "--submissions", submissions, "--out", folder,
               "--quiet", "--code-metrics", "off"] + (args.judge_args or [])
    print(f"keval generate: judging turn {turn}: {' '.join(command)}", file=sys.stderr, flush=True)
    status = run_judge(command)
    done = judged_results(folder, ids)
    if status != 0 or done is None:
        raise GenerateError(folder, f"judging turn {turn} failed (keval run exited {status})")
    return file_named_from_judge_out(done, submissions, args.judge_out)
