"""keval generate's providers and settings end to end (the generation's Python process against
real fake servers of both API shapes): a provider-prefixed model, streaming, reasoning, a price
table, a system prompt, a template by name and version, custom headers, n answers per request;
every setting that changes an answer in the record and the resume key; bad settings refused
with one line naming the file or option."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ANTHROPIC_SERVER, REPO, SUITE, recorded_routes, run_keval

TASKS = "relu,softmax"
SYSTEM = "You are a careful Triton programmer."


def generate(server, tmp_path, model, *extra, env=None):
    command = [sys.executable, "-m", "keval_generate", "generate", "--suite-folder", str(SUITE), "--suite-kind",
               "keval", "--task-names", TASKS, "--model", model, "--base-url", server.url, "--samples", "2",
               "--out", str(tmp_path / "subs.jsonl"), "--store", str(tmp_path / "subs.db"), "--concurrency", "2",
               *map(str, extra)]
    full_env = dict(os.environ, PYTHONPATH=str(REPO / "runner"), **(env or {}))
    return subprocess.run(command, capture_output=True, text=True, env=full_env, timeout=120)


def routes_with_reasoning():
    return [dict(r, reasoning="thinking about " + r["match"].strip()[:20]) for r in recorded_routes()]


def records(tmp_path):
    return [json.loads(line) for line in (tmp_path / "subs.jsonl").read_text().splitlines()]


@pytest.mark.timeout(120)
def test_anthropic_model_streamed_priced_with_its_settings_recorded_and_keyed(tmp_path, fake_server):
    server = fake_server({"routes": routes_with_reasoning()}, ANTHROPIC_SERVER)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"anthropic/claude-fake": {"input": 3, "output": 15}, "gpt-4o": {"input": 2.5,
                                                                                                   "output": 10}}))
    settings = ["--stream", "--prices", prices, "--system-prompt", SYSTEM, "--template", "keval.v1",
                "--header", "X-Run: nightly", "--stop", "\n```\n\n", "--temperature", "0.2"]
    env = {"ANTHROPIC_API_KEY": "sk-ant-test"}
    proc = generate(server, tmp_path, "anthropic/claude-fake", *settings, env=env)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["requested"] == 4 and summary["stream"] is True
    lines = records(tmp_path)
    assert len(lines) == 4
    for line in lines:
        g = line["generation"]
        assert g["model"] == "anthropic/claude-fake" and g["template"] == "keval.v1"
        assert g["reasoning"].startswith("thinking about ")
        assert g["cost_usd"] == pytest.approx((g["prompt_tokens"] * 3 + g["completion_tokens"] * 15) / 1e6)
        s = g["settings"]
        assert s["provider"] == "anthropic" and s["max_tokens"] == 8192 and s["temperature"] == 0.2
        assert s["stop"] == ["\n```\n\n"] and s["header_names"] == ["X-Run"] and "nightly" not in json.dumps(s)
        assert len(s["system_prompt_sha256"]) == 16
    assert summary["cost_usd"] == pytest.approx(sum(line["generation"]["cost_usd"] for line in lines))
    sent = server.requests()
    assert all(r["settings"]["system"] == SYSTEM and r["settings"]["model"] == "claude-fake" for r in sent)
    assert all(r["headers"]["x-run"] == "nightly" and r["headers"]["x-api-key"] == "sk-ant-test" for r in sent)

    again = generate(server, tmp_path, "anthropic/claude-fake", *settings, env=env)
    assert json.loads(again.stdout)["requested"] == 0  # the same settings: nothing asked twice
    other = generate(server, tmp_path, "anthropic/claude-fake", *settings, "--top-p", "0.5", env=env)
    assert json.loads(other.stdout)["requested"] == 4  # another top_p is another answer
    assert all(line["generation"]["settings"]["top_p"] == 0.5 for line in records(tmp_path))
    weekly = [("X-Run: weekly" if s == "X-Run: nightly" else s) for s in settings]
    header = generate(server, tmp_path, "anthropic/claude-fake", *weekly, env=env)
    assert json.loads(header.stdout)["requested"] == 4  # a header may pick a model version: keyed too
    assert len(server.requests()) == 12


@pytest.mark.timeout(120)
def test_openai_prefix_and_n_answers_per_request(tmp_path, fake_server):
    server = fake_server({"routes": recorded_routes()})
    proc = generate(server, tmp_path, "openai/fake-model", "--n", "2", "--samples", "4", "--stream")
    assert proc.returncode == 0, proc.stderr
    sent = server.requests()
    assert len(sent) == 4 and sorted(r["settings"]["n"] for r in sent) == [2, 2, 2, 2]
    assert sorted(r["seed"] for r in sent) == [0, 0, 2, 2]  # samples 0-1 and 2-3 of each task
    lines = records(tmp_path)
    assert len(lines) == 8
    routes = {r["match"]: r["responses"] for r in recorded_routes()}
    relu = [line for line in lines if line["task"] == "relu"]
    response = next(v for k, v in routes.items() if "relu" in k)
    assert [line["code"] for line in relu] == [response[i] for i in range(4)]
    assert all(line["generation"]["settings"]["n"] == 2 for line in lines)
    assert "provider" not in lines[0]["generation"]["settings"]  # OpenAI-compatible keeps the old key


@pytest.mark.timeout(120)
@pytest.mark.parametrize("model, extra, where", [
    ("anthropic/claude-fake", ["--prices", "PRICES"], "prices.json: no price for model 'anthropic/claude-fake'"),
    ("fake-model", ["--template", "keval.v9"], "--template: no prompt template 'keval.v9'"),
    ("fake-model", ["--header", "no colon here"], "--header: 'no colon here' is not NAME: VALUE"),
    ("anthropic/claude-fake", ["--n", "3"], "--n: the Anthropic Messages API answers one sample per request"),
    ("fake-model", ["--thinking-budget", "2048"], "--thinking-budget: only the Anthropic Messages API takes it"),
    ("fake-model", ["--top-p", "1.5"], "--top-p: 1.5 is not in (0, 1]"),
])
def test_bad_settings_are_one_line_naming_the_option_or_file(tmp_path, fake_server, model, extra, where):
    server = fake_server({"routes": recorded_routes()})
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"gpt-4o": {"input": 2.5, "output": 10}}))
    proc = generate(server, tmp_path, model, *[str(prices) if e == "PRICES" else e for e in extra],
                    env={"ANTHROPIC_API_KEY": "x"})
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and where in proc.stderr, proc.stderr
    assert server.requests() == []


@pytest.mark.timeout(120)
def test_keval_generate_passes_every_setting_on(tmp_path, fake_server, monkeypatch):
    """The same settings through the keval binary: its options reach the request and the record."""
    server = fake_server({"routes": routes_with_reasoning()}, ANTHROPIC_SERVER)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"claude-fake": {"input": 1, "output": 2}}))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    run_keval("generate", "--suite", "suites/keval", "--tasks", TASKS, "--model", "anthropic/claude-fake",
              "--base-url", server.url, "--samples", 1, "--out", tmp_path / "subs.jsonl", "--stream",
              "--top-p", 0.9, "--stop", "```\n", "--stop", "END", "--header", "X-Run: nightly", "--max-tokens", 500,
              "--system-prompt", SYSTEM, "--template", "keval.v1", "--thinking-budget", 2048, "--prices", prices)
    sent = server.requests()
    assert len(sent) == 2
    for request in sent:
        assert request["settings"]["top_p"] == 0.9 and request["settings"]["stop_sequences"] == ["```\n", "END"]
        assert request["settings"]["stream"] is True and request["settings"]["max_tokens"] == 500
        assert request["settings"]["system"] == SYSTEM and request["headers"]["x-run"] == "nightly"
        assert request["settings"]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    for line in records(tmp_path):
        assert line["generation"]["settings"]["thinking_budget"] == 2048 and line["generation"]["reasoning"]
        assert line["generation"]["cost_usd"] is not None


@pytest.mark.timeout(120)
def test_stop_sequences_that_start_with_a_dash_reach_the_request_unchanged(tmp_path, fake_server):
    """`--stop --` and `--stop=--` are a stop sequence "--", not the end of the options (keval
    passes stops on as `--stop=S`; Python's argparse before 3.13 turned that "--" into [])."""
    server = fake_server({"routes": recorded_routes()})
    run_keval("generate", "--suite", "suites/keval", "--tasks", "relu", "--model", "fake-model", "--base-url",
              server.url, "--samples", 1, "--out", tmp_path / "subs.jsonl",
              "--stop", "--", "--stop=--", "--stop", "-x", "--stop", "--x", "--stop=---")
    stops = ["--", "--", "-x", "--x", "---"]
    assert [request["settings"]["stop"] for request in server.requests()] == [stops]
    assert [line["generation"]["settings"]["stop"] for line in records(tmp_path)] == [stops]
