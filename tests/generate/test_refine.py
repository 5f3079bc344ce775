"""keval generate --turns: each turn after the first carries the judge's feedback on the last
answer, and the fake model answers by it (mostly wrong at turn 1; mostly right once it sees the
first failing case). 3 turns x 4 samples x 3 tasks: the per-turn scores are checked against a
hand count, and a kill of keval between turns takes every process it started along, then
resumes without asking any turn twice (the server counts the requests). The tasks are three
cheap elementwise ones, and one answers mostly an empty block, judged with no job at all."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import KEVAL, REPO, SUITE, run_keval, task_config

TURNS, SAMPLES = 3, 4
TASKS = ["vector_add", "relu", "leaky_relu"]
FEEDBACK = "keval judged your last answer"
EMPTY = "I cannot write this one.\n```python\n```\n"
# The hand count: each task's verdict per turn, sample 0 to 3 (P pass, M mismatch, B
# bad_submission), as refine_routes answers.
VERDICTS = {"vector_add": ["MMMM", "PPPM", "PMPM"],
            "relu": ["PMMM", "PPMP", "PPMP"],
            "leaky_relu": ["BBBB", "PBBB", "PBBB"]}
LETTERS = {"P": "pass", "M": "mismatch", "B": "bad_submission"}


def fenced(code: str) -> str:
    return f"Here is the kernel.\n```python\n{code}```\n"


def refine_routes() -> list:
    """Answers by sample (the request's seed): vector_add is wrong at turn 1; after feedback
    naming a failing case samples 0-2 are right, 3 stays wrong; after a pass sample 1
    regresses. relu: sample 0 right at turn 1, after any feedback all but sample 2. leaky_relu:
    an empty block, except sample 0 after any feedback. So VERDICTS."""
    add, relu, leaky = ((SUITE / name / "golden.py").read_text() for name in TASKS)
    wrong_add, wrong_relu = add.replace("(x + y)", "(x - y)"), relu.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    assert wrong_add != add and wrong_relu != relu
    add_sig, relu_sig, leaky_sig = ("    " + task_config(name)["signature"] for name in TASKS)
    good_add, bad_add, good_relu, bad_relu = map(fenced, (add, wrong_add, relu, wrong_relu))
    return [{"match": f"{FEEDBACK}: pass", "also": add_sig, "responses": [good_add, bad_add, good_add, good_add]},
            {"match": "First problem: case", "also": add_sig, "responses": [good_add, good_add, good_add, bad_add]},
            {"match": add_sig, "responses": [bad_add]},
            {"match": FEEDBACK, "also": relu_sig, "responses": [good_relu, good_relu, bad_relu, good_relu]},
            {"match": relu_sig, "responses": [good_relu, bad_relu, bad_relu, bad_relu]},
            {"match": FEEDBACK, "also": leaky_sig, "responses": [fenced(leaky), EMPTY, EMPTY, EMPTY]},
            {"match": leaky_sig, "responses": [EMPTY]}]


def refine_args(server, out):
    return ["generate", "--suite", "suites/keval", "--tasks", ",".join(TASKS), "--model", "fake-model",
            "--base-url", server.url, "--samples", SAMPLES, "--turns", TURNS, "--concurrency", 2,
            "--temperature", 0.5, "--out", out, "--device", "cpu", "--jobs", 2, "--no-timing"]


def answered(server) -> list:
    return [r for r in server.requests() if r["fault"] is None]


def kill_between_turns(server, out, judge_out):
    """Starts the refinement and kills keval's process group once turn 1 is being judged: keval,
    its Python side and the judging keval run. The runners, in process groups of their own, must
    go with them (their death signal), and every process that carries the run's mark too."""
    mark = f"KEVAL_TEST_REFINE={judge_out}"
    env = {**os.environ, "KEVAL_TEST_REFINE": str(judge_out)}
    process = subprocess.Popen([KEVAL, *map(str, refine_args(server, out))], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while not (judge_out / "turn-1.jsonl").exists():
        assert process.poll() is None, "generate ended before it could be killed"
        assert time.monotonic() < deadline, "turn 1 was never judged"
        time.sleep(0.02)
    family = descendants(process.pid)
    assert family, "keval started nothing"
    # keval's group, and its Python tool's (which leads a group of its own so that keval alone
    # gets a terminal's Ctrl-C): a crash of both, the judging keval run in the tool's group with it
    tool_groups = {os.getpgid(pid) for pid in children(process.pid)} - {process.pid}
    for group in [process.pid, *tool_groups]:
        os.killpg(group, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 60
    while left := [pid for pid in family if alive(pid)] + marked(mark):
        assert time.monotonic() < deadline, f"{sorted(set(left))} outlived keval by 60 s"
        time.sleep(0.1)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def marked(mark: str) -> list:
    """Live processes whose environment holds `mark` (those this test may read)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if mark.encode() in f.read().split(b"\0") and alive(int(entry)):
                        found.append(int(entry))
            except OSError:
                pass
    return found


def children(parent: int) -> list:
    return [pid for pid, its_parent in parent_pids().items() if its_parent == parent]


def parent_pids() -> dict:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    return parents


def descendants(root: int) -> list:
    parents = parent_pids()
    found, frontier = [], [root]
    while frontier:
        below = [pid for pid, parent in parents.items() if parent in frontier]
        found += below
        frontier = below
    return found


def test_refine_feedback_scores_and_resume_between_turns(tmp_path, fake_server):
    server = fake_server({"routes": refine_routes()})
    out, judge_out = tmp_path / "refine.jsonl", tmp_path / "refine.turns"

    kill_between_turns(server, out, judge_out)
    assert len(answered(server)) == len(TASKS) * SAMPLES and not out.exists()  # turn 1 only
    result = run_keval(*refine_args(server, out))
    assert "already stored, 0 to request" in result.stderr  # turn 1 comes from the store

    # Every turn of every sample asked exactly once, over the kill and the rerun.
    requests = answered(server)
    assert len(requests) == TURNS * len(TASKS) * SAMPLES
    assert len({(r["prompt_sha"], r["seed"]) for r in requests}) == len(requests)
    assert sorted(r["messages"] for r in requests) == sorted([2, 4, 6] * len(TASKS) * SAMPLES)  # system + user, + 2 a turn

    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == TURNS * len(TASKS) * SAMPLES
    verdicts = {(r["task"], r["generation"]["sample"], r["generation"]["turn"]): r["judge"]["verdict"] for r in records}
    assert verdicts == {(task, sample, turn + 1): LETTERS[letters[sample]]
                        for task, turns in VERDICTS.items() for turn, letters in enumerate(turns)
                        for sample in range(SAMPLES)}
    first, later = records[0]["generation"], next(r["generation"] for r in records if r["generation"]["turn"] == 2)
    assert first["template"] == "keval.v1" and later["template"] == "keval.v1+keval.refine.v1"
    assert first["settings"]["temperature"] == 0.5 and first["settings"]["prompt_mode"] == "zero-shot"
    add_turn_1 = next(r for r in records if r["task"] == "vector_add" and r["generation"]["turn"] == 1)
    assert add_turn_1["id"].endswith("/t1") and add_turn_1["judge"]["reasons"][0].startswith("case ")

    # Hand count: per task, passes at turn t (now) and samples passed at some turn up to t (best):
    # vector_add 0 3 2 (best 0 3 3), relu 1 3 3 (1 3 3), leaky_relu 0 1 1 (0 1 1). pass@1 is
    # the mean over tasks of passes/4; pass@4 is the share of tasks with a pass.
    summary = json.loads((judge_out / "summary.json").read_text())
    per_turn = summary["per_turn"]
    assert [t["passes"] for t in per_turn] == [1, 7, 6]
    assert [t["best_so_far"]["passes"] for t in per_turn] == [1, 7, 7]
    assert [t["pass_at_k"]["1"] for t in per_turn] == pytest.approx([1 / 12, 7 / 12, 6 / 12])
    assert [t["best_so_far"]["pass_at_k"]["1"] for t in per_turn] == pytest.approx([1 / 12, 7 / 12, 7 / 12])
    assert [t["pass_at_k"]["4"] for t in per_turn] == pytest.approx([1 / 3, 1, 1])
    assert sorted(per_turn[0]["pass_at_k"]) == ["1", "4"]
    assert per_turn[0]["fast_1"] is None  # --no-timing measured no speedup
    # The same figure keval run gives each turn's answers on its own.
    for turn in per_turn:
        run_summary = json.loads((judge_out / f"turn-{turn['turn']}" / "summary.json").read_text())
        assert run_summary["pass_at_k"]["1"] == pytest.approx(turn["pass_at_k"]["1"])
    assert "turn  passes  pass@1" in result.stderr
    # keval report on the judge folder counts the same curves again from each turn's results.
    run_keval("report", judge_out, "--out", tmp_path / "refine.html")
    markdown = (tmp_path / "refine.md").read_text()
    for row in ("| 1 | 1 | 8.3% | – | – | 1 | 8.3% | – |", "| 2 | 7 | 58.3% | – | – | 7 | 58.3% | – |",
                "| 3 | 6 | 50.0% | – | – | 7 | 58.3% | – |"):
        assert row in markdown
    assert 'id="refinement"' in (tmp_path / "refine.html").read_text()

    # Once done, a rerun asks nothing and judges nothing again.
    again = run_keval(*refine_args(server, out))
    assert len(answered(server)) == len(requests)
    assert again.stderr.count("already judged") == TURNS


def generate_once(server, out, *extra):
    return run_keval("generate", "--suite", "suites/keval", "--tasks", "relu", "--model", "fake-model",
                     "--base-url", server.url, "--samples", 2, "--out", out, *extra)


def test_resume_key_holds_temperature_max_tokens_and_base_url(tmp_path, fake_server):
    relu = (SUITE / "relu" / "golden.py").read_text()
    server = fake_server({"routes": [{"match": "    " + task_config("relu")["signature"], "responses": [fenced(relu)]}]})
    out = tmp_path / "subs.jsonl"
    steps = [(["--temperature", "0.8"], 2), (["--temperature", "0.8"], 0), (["--temperature", "0"], 2),
             (["--temperature", "0", "--max-tokens", "100"], 2), (["--temperature", "0", "--max-tokens", "100"], 0)]
    for extra, expected in steps:
        before = len(answered(server))
        generate_once(server, out, *extra)
        assert len(answered(server)) - before == expected, extra
    settings = json.loads(out.read_text().splitlines()[0])["generation"]["settings"]
    assert settings["temperature"] == 0 and settings["max_tokens"] == 100
    # The same server under another name is another base URL: its answers are not reused.
    before = len(answered(server))
    run_keval("generate", "--suite", "suites/keval", "--tasks", "relu", "--model", "fake-model",
              "--base-url", server.url.replace("127.0.0.1", "localhost"), "--samples", 2, "--out", out,
              "--temperature", "0", "--max-tokens", "100")
    assert len(answered(server)) - before == 2


def test_null_content_is_an_empty_answer_judged_bad_submission(tmp_path, fake_server):
    server = fake_server({"routes": [{"match": "    " + task_config("relu")["signature"], "responses": [None]}]})
    out = tmp_path / "subs.jsonl"
    generate_once(server, out, "--max-attempts", 3)
    assert len(server.requests()) == 2  # one request a sample: nothing retried, nothing billed twice
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [l["code"] for l in lines] == ["", ""]
    run = tmp_path / "run"
    run_keval("run", "--suite", "suites/keval", "--submissions", out, "--out", run, "--device", "cpu",
              "--no-timing", "--quiet", "--code-metrics", "off")
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in results] == ["bad_submission", "bad_submission"]


def test_feedback_on_a_bad_submission_names_no_folder_of_the_machine(tmp_path, fake_server):
    """A bad_submission's reason starts with the file and line it was read from: the turn's
    JSONL under JUDGE_OUT. The model sees it as `turn-1.jsonl:1`; a feedback holding this
    machine's folders gets the route that matches them instead (the server logs the route)."""
    relu_sig = "    " + task_config("relu")["signature"]
    server = fake_server({"routes": [{"match": str(tmp_path), "responses": [EMPTY]},
                                     {"match": "First problem: turn-1.jsonl:1: ", "responses": [EMPTY]},
                                     {"match": relu_sig, "responses": [EMPTY]}]})
    out = tmp_path / "refine.jsonl"
    run_keval("generate", "--suite", "suites/keval", "--tasks", "relu", "--model", "fake-model",
              "--base-url", server.url, "--samples", 1, "--turns", 2, "--out", out, "--device", "cpu",
              "--no-timing")
    assert [r["route"] for r in answered(server)] == [relu_sig, "First problem: turn-1.jsonl:1: "]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["judge"]["verdict"] for r in records] == ["bad_submission"] * 2
    assert [r["judge"]["reasons"][0].split(": ")[0] for r in records] == ["turn-1.jsonl:1", "turn-2.jsonl:1"]
    assert str(tmp_path) not in out.read_text()
