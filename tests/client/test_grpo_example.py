"""examples/grpo_loop.py end to end: a fake model answers by seed (step 0: one golden in four
per task; step 1: three in four), keval serve judges on the CPU, and the printed mean rewards
match that count. Run again with the same keys, it makes no new job."""
import json
import subprocess
import sys
import urllib.request

from conftest import REPO, TOKEN


def queued_jobs(url: str) -> int:
    request = urllib.request.Request(url + "/v1/health")
    with urllib.request.urlopen(request, timeout=30) as response:
        return sum(json.load(response)["queue"].values())


def run_example(serve, model_url, out):
    return subprocess.run(
        [sys.executable, str(REPO / "examples" / "grpo_loop.py"), "--keval", serve["url"], "--token-file",
         str(serve["token_file"]), "--model-url", model_url, "--model", "fake", "--suite",
         str(REPO / "suites" / "keval"), "--tasks", "vector_add,relu", "--k", "4", "--steps", "2",
         "--shaping", "binary", "--run", "example", "--json", str(out)],
        capture_output=True, text=True, timeout=500, check=True)


def test_grpo_loop_prints_each_steps_mean_reward(serve, model_server, tmp_path):
    first = run_example(serve, model_server, tmp_path / "steps.json")
    steps = json.loads((tmp_path / "steps.json").read_text())
    assert [s["mean_reward"] for s in steps] == [0.25, 0.75]
    assert [s["passes"] for s in steps] == [2, 6]
    assert "step 0: mean reward 0.2500 (binary), 2/8 pass" in first.stdout
    assert "step 1: mean reward 0.7500 (binary), 6/8 pass" in first.stdout
    assert steps[0]["advantages"]["relu"] == [1.732, -0.577, -0.577, -0.577]
    jobs = queued_jobs(serve["url"])
    run_example(serve, model_server, tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text()) == steps
    assert queued_jobs(serve["url"]) == jobs
