"""keval slurm submit|status|resubmit|merge against a real one-node Slurm (slurm_cluster.py):
a 4-shard CPU-mode array gives the same verdicts as one keval run, and survives one array task
being cancelled while it judges and then resubmitted (the shard resumes what it had finished)."""
import json
import os
import sqlite3
import subprocess
import time

import pytest

from conftest import KEVAL, REPO, SLOW_VECTOR_ADD, read_results, run_keval, shard_of
from slurm_cluster import SlurmCluster, missing_programs

SHARDS = 4


@pytest.fixture()
def slurm(tmp_path):
    missing = missing_programs()
    if missing and os.environ.get("CI"):
        pytest.fail(f"Slurm is not installed ({', '.join(missing)}): scripts/install-deps.sh installs it")
    if missing:
        pytest.skip(f"no Slurm here ({', '.join(missing)})")
    root = tmp_path / "slurm"
    root.mkdir(mode=0o700)
    cluster = SlurmCluster(root)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def wait_for(predicate, what, cluster, timeout=240):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}\n" + cluster.logs())


def status(out, env):
    return json.loads(run_keval("slurm", "status", "--out", out, "--json", env=env).stdout)


def test_a_four_shard_array_survives_a_cancelled_task_and_matches_one_run(tmp_path, submissions_file, slurm):
    subs, lines = submissions_file
    lines.append({"task": "vector_add", "code": SLOW_VECTOR_ADD, "id": "vector_add_slow_load"})
    subs.write_text("".join(json.dumps(l) + "\n" for l in lines))
    slow_shard = shard_of("vector_add", SLOW_VECTOR_ADD, SHARDS)
    before_slow = sum(shard_of(l["task"], l["code"], SHARDS) == slow_shard for l in lines) - 1
    assert before_slow > 0, "the slow submission should share its shard"
    env = dict(slurm.env)
    env.pop("TRITON_INTERPRET", None)
    run_args = ("--device", "cpu", "--no-timing", "--jobs", "1")

    out = tmp_path / "array"
    proc = run_keval("slurm", "submit", "--suite", "suites/keval", "--submissions", subs, "--out", out,
                     "--shards", SHARDS, "--max-parallel", 2, *run_args, env=env)
    job = json.loads((out / "slurm" / "array.json").read_text())["job_ids"][0]
    assert "--array" not in proc.stdout and job in proc.stdout
    assert "#SBATCH --gpus-per-task" not in (out / "slurm" / "array.sh").read_text()
    # the single run to compare with, beside the array
    single = tmp_path / "single"
    single_run = subprocess.Popen([KEVAL, "run", "--suite", "suites/keval", "--submissions", subs, "--out", single,
                                   "--quiet", *run_args], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)

    # Cancel the slow shard's task once it has judged everything before the slow one.
    results = out / "shards" / str(slow_shard) / "results.jsonl"
    wait_for(lambda: results.exists() and len(results.read_text().splitlines()) >= before_slow,
             "the slow shard's first results", slurm)
    subprocess.run(["scancel", f"{job}_{slow_shard}"], env=env, check=True)
    wait_for(lambda: [s["state"] for s in status(out, env)["shards"]].count("done") == SHARDS - 1 and
             status(out, env)["shards"][slow_shard]["state"] == "stopped", "the other shards", slurm)

    refused = run_keval("slurm", "merge", "--out", out, env=env, check=False)
    assert refused.returncode == 1 and f"{slow_shard}/{SHARDS}" in refused.stderr

    proc = run_keval("slurm", "resubmit", "--out", out, env=env)
    assert f"({slow_shard})" in proc.stdout
    wait_for(lambda: status(out, env)["done"] == SHARDS, "the resubmitted shard", slurm)
    summary = json.loads((out / "shards" / str(slow_shard) / "summary.json").read_text())
    assert summary["resumed"] == before_slow  # nothing it had finished ran again

    run_keval("slurm", "merge", "--out", out, env=env)
    assert single_run.wait(timeout=300) == 0, single_run.stderr.read()
    assert [(r["id"], r["verdict"]) for r in read_results(out)] == \
        [(r["id"], r["verdict"]) for r in read_results(single)]
    with sqlite3.connect(out / "keval.db") as db:
        assert db.execute("SELECT count(*), count(DISTINCT eval_key) FROM evaluations").fetchone() == (len(lines),) * 2
    assert json.loads((out / "summary.json").read_text())["verdict_counts"] == \
        json.loads((single / "summary.json").read_text())["verdict_counts"]
