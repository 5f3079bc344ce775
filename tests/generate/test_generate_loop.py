"""The whole loop on the CPU: `keval generate` K=4 samples for the 12 core tasks from a real
HTTP server (with 429s and broken answers on the way), a crash in the middle, a rerun that
completes it with no duplicate and no lost sample, `keval run` on them, the scores in
summary.json, and `keval compare`."""
import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import time

from conftest import CORE, FAILING, KEVAL, REPO, recorded_routes, run_keval, task_config

SAMPLES = 4
FAULTS = {"2": "rate_limit", "5": "server_error", "9": "broken_json", "13": "no_choices"}


def generate_args(server, out):
    return ["generate", "--suite", "suites/keval", "--tasks", ",".join(CORE), "--model", "fake-model",
            "--base-url", server.url, "--samples", SAMPLES, "--concurrency", 2, "--out", out,
            "--prompt", "one-shot-retrieved", "--price-prompt", "1.0", "--price-completion", "2.0"]


def stored_rows(store) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store) as db:
            return db.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def signature_route(task: str) -> str:
    return "    " + task_config(task)["signature"]


def stored_pairs(store) -> set:
    with sqlite3.connect(store) as db:
        return {(signature_route(task), sample) for task, sample in db.execute("SELECT task, sample FROM samples")}


def descendants(pid: int) -> list:
    """Every process below `pid`, children first."""
    found, queue = [], [pid]
    while queue:
        parent = queue.pop(0)
        for task in pathlib.Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += children
            queue += children
    return found


def kill_as_a_crash(process) -> None:
    """SIGKILL to keval and its Python tool at once. The tool runs in a process group of its own
    (a terminal's Ctrl-C reaches keval alone) and stops on SIGTERM when keval dies, writing what
    finished: killing keval's group alone would be a clean stop, not a crash."""
    below = descendants(process.pid)
    for pid in below:
        try:
            os.killpg(pid, signal.SIGKILL)  # each tool leads its own group
        except ProcessLookupError:
            pass
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 30
    while any(running(pid) for pid in below) and time.monotonic() < deadline:
        time.sleep(0.05)


def running(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for its reaper does not)."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def crash_midway(server, out, store):
    """Starts generate and kills keval and its Python at once, mid-way (kill_as_a_crash)."""
    env = dict(os.environ)
    process = subprocess.Popen([KEVAL, *map(str, generate_args(server, out))], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while stored_rows(store) < 12:
        assert process.poll() is None, "generate ended before it could be killed"
        assert time.monotonic() < deadline, "generate stored nothing"
        time.sleep(0.02)
    kill_as_a_crash(process)
    return stored_rows(store)


def test_generate_crash_resume_run_and_score(tmp_path, fake_server):
    server = fake_server({"routes": recorded_routes(), "faults": FAULTS, "delay_s": 0.05})
    out, store = tmp_path / "subs.jsonl", tmp_path / "subs.generate.db"

    kept = crash_midway(server, out, store)
    assert 12 <= kept < len(CORE) * SAMPLES and not out.exists()
    missing = {(signature_route(t), i) for t in CORE for i in range(SAMPLES)} - stored_pairs(store)
    asked_before = len(server.requests())
    result = run_keval(*generate_args(server, out))
    assert f"{kept} already stored" in result.stderr
    # The rerun asks only for what was missing. The killed run's requests still in the server's
    # backlog may be logged after asked_before: at most --concurrency of them, all for missing pairs.
    answered_after = [r for r in server.requests()[asked_before:] if r["fault"] is None]
    assert {(r["route"], r["seed"]) for r in answered_after} == missing
    assert len(missing) <= len(answered_after) <= len(missing) + 2

    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == len(CORE) * SAMPLES == stored_rows(store)
    assert sorted((l["task"], l["generation"]["sample"]) for l in lines) == sorted(
        (t, i) for t in CORE for i in range(SAMPLES))
    assert len({l["id"] for l in lines}) == len(lines)
    assert {l["id"] for l in lines} == {f"{t}@fake-model#{i}" for t in CORE for i in range(SAMPLES)}
    first = lines[0]["generation"]
    assert first["template"] == "keval.v1" and first["retrieved"].startswith("golden:")
    assert first["retrieved"] != f"golden:{lines[0]['task']}"
    assert first["cost_usd"] == (first["prompt_tokens"] * 1.0 + first["completion_tokens"] * 2.0) / 1e6
    with sqlite3.connect(store) as db:
        prompt, response = db.execute("SELECT messages, response FROM samples LIMIT 1").fetchone()
    assert json.loads(prompt)[1]["role"] == "user" and response

    run = tmp_path / "run"
    run_keval("run", "--suite", "suites/keval", "--submissions", out, "--out", run, "--device", "cpu",
              "--jobs", 2, "--no-timing", "--quiet")
    summary = json.loads((run / "summary.json").read_text())
    passing = len(CORE) - len(FAILING)
    assert summary["pass_at_k"]["1"] == (passing * 3 / 4) / len(CORE)
    assert summary["pass_at_k"]["4"] == passing / len(CORE)
    model = summary["per_model"]["fake-model"]
    assert model["pass_at_k"] == summary["pass_at_k"] and model["passes"] == passing * 3
    assert model["fast_p"]["0"] is None and model["fast_p"]["1"] is None  # --no-timing: not measured
    assert model["tokens_per_pass"] > 0 and model["cost_usd_per_pass"] > 0 and model["generation_s_per_pass"] > 0
    metrics = model["code_metrics"]
    # 30 of the 48 replies are the golden itself: CodeBLEU 1; the rest much lower.
    assert 0.6 < metrics["codebleu_mean"] < 1.0 and 30 < metrics["maintainability_index_mean"] < 100
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    golden_reply = next(r for r in results if r["id"] == "softmax@fake-model#0")
    assert golden_reply["verdict"] == "pass" and abs(golden_reply["code_metrics"]["codebleu"] - 1.0) < 1e-9
    assert golden_reply["generation"]["sample"] == 0

    # Timed on one task (a tiny budget): fast_1 and the geomean's interval are filled in.
    timed, vector_add = tmp_path / "timed", tmp_path / "vector_add.jsonl"
    vector_add.write_text("".join(json.dumps(l) + "\n" for l in lines if l["task"] == "vector_add"))
    run_keval("run", "--suite", "suites/keval", "--submissions", vector_add, "--out", timed, "--device", "cpu",
              "--jobs", 2, "--quiet")
    timed_model = json.loads((timed / "summary.json").read_text())["per_model"]["fake-model"]
    assert timed_model["geomean_speedup"] > 0 and len(timed_model["geomean_speedup_ci"]) == 2
    assert timed_model["fast_p"]["0"] == 0.75 and 0 <= timed_model["fast_p"]["1"] <= 0.75

    table = run_keval("compare", run, timed, "--json", tmp_path / "compare.json").stdout
    assert "| run:fake-model |" in table and "| timed:fake-model |" in table and "| softmax | 3/4 |" in table
    comparison = json.loads((tmp_path / "compare.json").read_text())
    assert [e["label"] for e in comparison["entries"]] == ["run:fake-model", "timed:fake-model"]


def test_ctrl_c_stops_generate_and_keeps_what_arrived(tmp_path, fake_server):
    server = fake_server({"routes": recorded_routes(), "delay_s": 0.2})
    out, store = tmp_path / "subs.jsonl", tmp_path / "subs.generate.db"
    process = subprocess.Popen([KEVAL, *map(str, generate_args(server, out))], cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while stored_rows(store) < 3:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted (SIGINT); what arrived is stored, run the same command again to continue" in stderr
    assert stored_rows(store) >= 3
    assert len(out.read_text().splitlines()) == stored_rows(store)  # what finished is written
