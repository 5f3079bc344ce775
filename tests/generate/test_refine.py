"""keval generate --turns: each turn after the first carries the judge's feedback on the last
answer, and the fake model answers by it (wrong at turn 1; right once it sees the first failing
case). The per-turn scores are checked against a hand count, and a kill between turns resumes
without asking any turn twice (the server counts the requests)."""
import json
import os
import signal
import subprocess
import time

from conftest import KEVAL, REPO, SUITE, run_keval, task_config

TURNS, SAMPLES = 3, 2
FEEDBACK = "keval judged your last answer"


def fenced(code: str) -> str:
    return f"Here is the kernel.\n```python\n{code}```\n"


def refine_routes() -> list:
    """vector_add: wrong at turn 1; right after feedback naming a failing case; after a pass,
    sample 0 stays right and sample 1 regresses. relu: wrong at turn 1; after any feedback
    sample 0 is right and sample 1 stays wrong."""
    add, relu = (SUITE / "vector_add" / "golden.py").read_text(), (SUITE / "relu" / "golden.py").read_text()
    wrong_add, wrong_relu = add.replace("(x + y)", "(x - y)"), relu.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    assert wrong_add != add and wrong_relu != relu
    add_sig, relu_sig = ("    " + task_config(n)["signature"] for n in ("vector_add", "relu"))
    return [{"match": f"{FEEDBACK}: pass", "also": add_sig, "responses": [fenced(add), fenced(wrong_add)]},
            {"match": "First problem: case", "also": add_sig, "responses": [fenced(add)]},
            {"match": add_sig, "responses": [fenced(wrong_add)]},
            {"match": FEEDBACK, "also": relu_sig, "responses": [fenced(relu), fenced(wrong_relu)]},
            {"match": relu_sig, "responses": [fenced(wrong_relu)]}]


def refine_args(server, out):
    return ["generate", "--suite", "suites/keval", "--tasks", "vector_add,relu", "--model", "fake-model",
            "--base-url", server.url, "--samples", SAMPLES, "--turns", TURNS, "--concurrency", 2,
            "--temperature", 0.5, "--out", out, "--device", "cpu", "--jobs", 2, "--no-timing"]


def answered(server) -> list:
    return [r for r in server.requests() if r["fault"] is None]


def kill_between_turns(server, out, judge_out):
    """Starts the refinement and kills keval and everything under it once turn 1 is being judged."""
    process = subprocess.Popen([KEVAL, *map(str, refine_args(server, out))], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while not (judge_out / "turn-1.jsonl").exists():
        assert process.poll() is None, "generate ended before it could be killed"
        assert time.monotonic() < deadline, "turn 1 was never judged"
        time.sleep(0.02)
    # keval's runner sets up a process group of its own, so a kill of keval's group leaves it
    # running (issue 45 names that defect on its own); kill every descendant, as a crashed
    # machine would, or the orphan's writes into turn-1/ race the rerun's judging.
    family = descendants(process.pid)
    os.killpg(process.pid, signal.SIGKILL)
    for pid in family:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()


def descendants(root: int) -> list:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = [], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def test_refine_feedback_scores_and_resume_between_turns(tmp_path, fake_server):
    server = fake_server({"routes": refine_routes()})
    out, judge_out = tmp_path / "refine.jsonl", tmp_path / "refine.turns"

    kill_between_turns(server, out, judge_out)
    assert len(answered(server)) == 2 * SAMPLES and not out.exists()  # turn 1 only
    result = run_keval(*refine_args(server, out))
    assert "already stored, 0 to request" in result.stderr  # turn 1 comes from the store

    # Every turn of every sample asked exactly once, over the kill and the rerun.
    requests = answered(server)
    assert len(requests) == TURNS * 2 * SAMPLES
    assert len({(r["prompt_sha"], r["seed"]) for r in requests}) == len(requests)
    assert sorted(r["messages"] for r in requests) == sorted([2, 4, 6] * 2 * SAMPLES)  # system + user, + 2 a turn

    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == TURNS * 2 * SAMPLES
    verdicts = {(r["task"], r["generation"]["sample"], r["generation"]["turn"]): r["judge"]["verdict"] for r in records}
    assert verdicts == {("vector_add", 0, 1): "mismatch", ("vector_add", 1, 1): "mismatch",
                        ("vector_add", 0, 2): "pass", ("vector_add", 1, 2): "pass",
                        ("vector_add", 0, 3): "pass", ("vector_add", 1, 3): "mismatch",
                        ("relu", 0, 1): "mismatch", ("relu", 1, 1): "mismatch",
                        ("relu", 0, 2): "pass", ("relu", 1, 2): "mismatch",
                        ("relu", 0, 3): "pass", ("relu", 1, 3): "mismatch"}
    first, later = records[0]["generation"], next(r["generation"] for r in records if r["generation"]["turn"] == 2)
    assert first["template"] == "keval.v1" and later["template"] == "keval.v1+keval.refine.v1"
    assert first["settings"]["temperature"] == 0.5 and first["settings"]["prompt_mode"] == "zero-shot"
    assert records[0]["id"].endswith("/t1") and records[0]["judge"]["reasons"][0].startswith("case ")

    # Hand count: pass@1 is the mean over tasks of passes/samples; pass@2 is 1 once a task has a pass.
    summary = json.loads((judge_out / "summary.json").read_text())
    per_turn = summary["per_turn"]
    assert [t["pass_at_k"]["1"] for t in per_turn] == [0.0, (2 / 2 + 1 / 2) / 2, (1 / 2 + 1 / 2) / 2]
    assert [t["best_so_far"]["pass_at_k"]["1"] for t in per_turn] == [0.0, 0.75, 0.75]
    assert [t["pass_at_k"]["2"] for t in per_turn] == [0.0, 1.0, 1.0]
    assert [t["passes"] for t in per_turn] == [0, 3, 2] and per_turn[2]["best_so_far"]["passes"] == 3
    assert per_turn[0]["fast_1"] is None  # --no-timing measured no speedup
    # The same figure keval run gives each turn's answers on its own.
    for turn in per_turn:
        run_summary = json.loads((judge_out / f"turn-{turn['turn']}" / "summary.json").read_text())
        assert run_summary["pass_at_k"]["1"] == turn["pass_at_k"]["1"]
    assert "turn  passes  pass@1" in result.stderr
    # keval report on the judge folder counts the same curves again from each turn's results.
    run_keval("report", judge_out, "--out", tmp_path / "refine.html")
    markdown = (tmp_path / "refine.md").read_text()
    for row in ("| 1 | 0 | 0.0% | – | – | 0 | 0.0% | – |", "| 2 | 3 | 75.0% | – | – | 3 | 75.0% | – |",
                "| 3 | 2 | 50.0% | – | – | 3 | 75.0% | – |"):
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
