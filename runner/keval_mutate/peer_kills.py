"""`peer-kills`: the mutants of a `keval mutate` run judged by each peer's own check (TritonBench-T's
exit code and stdout, KernelBench's allclose over 5 trials, KernelBenchX's one-seed assert_close),
counted beside keval's kills. Only mutants keval counts (killed or survived: judged, not
equivalent, programs) of tasks whose golden keval passes, and only where a task pairs with a peer
task (peer_pairs.toml) whose golden the peer passes too: a check that fails the golden proves
nothing by failing its mutants."""
import fnmatch
import json
import os

from .errors import MutateError
from .peer_judge import PeerRun, Submission, judge
from .peer_kill_table import render_markdown, tally

GOLDENS, MUTANTS = "goldens", "mutants"


def parse_peer(spec: str) -> tuple:
    from .peer_pairs import PEERS

    kind, sep, checkout = spec.partition(":")
    if not sep or not checkout:
        raise MutateError("--peer", f"{spec!r} is not KIND:CHECKOUT")
    if kind not in PEERS:
        raise MutateError("--peer", f"unknown peer {kind!r} (known: {', '.join(PEERS)})")
    if not os.path.isdir(checkout):
        raise MutateError("--peer", f"{checkout}: no such folder")
    return kind, os.path.abspath(checkout)


def task_filter(pattern: str, pairs: list, peers: dict):
    """task -> whether to read it: named by the --tasks globs (all without) and paired with a
    peer given."""
    globs = [g.strip() for g in pattern.split(",") if g.strip()]
    paired = {p.task for p in pairs if p.peer in peers}
    return lambda task: task in paired and (not globs or any(fnmatch.fnmatchcase(task, g) for g in globs))


def golden_submission(pair, task) -> Submission:
    return Submission(f"golden:{pair.task}", pair.peer_task, pair.submission(task.golden_code), "pass", "")


def mutant_submissions(pair, task) -> list:
    return [Submission(m.id, pair.peer_task, pair.submission(m.code), m.verdict, m.reason)
            for m in task.mutants if m.counted]


def judge_peer(kind: str, checkout: str, pairs: list, tasks: dict, out: str, run: PeerRun) -> tuple:
    """({task: the peer's verdict on the golden}, {mutant id: the peer's verdict}) for one peer:
    the goldens first, then the mutants of the pairs whose golden it passes."""
    folder = os.path.join(out, kind)
    mine = [p for p in pairs if p.peer == kind and tasks[p.task].golden_verdict == "pass"]
    goldens = judge(kind, checkout, [golden_submission(p, tasks[p.task]) for p in mine], folder, GOLDENS, run) \
        if mine else {}
    by_task = {p.task: goldens.get(f"golden:{p.task}", {"passed": False, "error": "not judged by the peer"})
               for p in mine}
    passing = [p for p in mine if by_task[p.task]["passed"]]
    print(f"{kind}: {sum(g['passed'] for g in by_task.values())} of {len(by_task)} goldens pass", flush=True)
    submissions = [s for p in passing for s in mutant_submissions(p, tasks[p.task])]
    mutants = judge(kind, checkout, submissions, folder, MUTANTS, run) if submissions else {}
    print(f"{kind}: {len(mutants)} mutants judged, {sum(not v['passed'] for v in mutants.values())} failed",
          flush=True)
    return by_task, mutants


def measure(tasks: dict, pairs: list, peers: dict, out: str, run: PeerRun) -> dict:
    """The report: per task and per peer the counts (peer_kill_table.tally), per mutant every
    verdict, per pair the peer's verdict on the golden."""
    pairs = [p for p in pairs if p.task in tasks]
    goldens, verdicts = {}, {}
    for kind, checkout in peers.items():
        goldens[kind], verdicts[kind] = judge_peer(kind, checkout, pairs, tasks, out, run)
    report = tally(tasks, pairs, peers, goldens, verdicts)
    report.update({"device": run.device, "peers": peers,
                   "mutate_outputs": sorted({t.folder for t in tasks.values()}),
                   "pairs": [{"task": p.task, "peer": p.peer, "peer_task": p.peer_task, "reason": p.reason,
                              "golden": goldens[p.peer].get(p.task)} for p in pairs if p.peer in peers]})
    return report


def write_report(report: dict, out: str) -> str:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "peer_kills.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    text = render_markdown(report)
    with open(os.path.join(out, "peer_kills.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return text
