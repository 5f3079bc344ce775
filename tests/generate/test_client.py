"""The HTTP client against the real fake server: 429 with Retry-After, 500, broken bodies."""
import time

import pytest

from keval_generate.chat_client import ChatClient, RateGate, retry_after_seconds
from keval_generate.errors import GenerateError

ROUTES = [{"match": "hello", "responses": ["first", "second"]}]
MESSAGES = [{"role": "user", "content": "hello there"}]


def test_faults_are_retried_and_the_rate_limit_is_waited_out(fake_server):
    server = fake_server({"routes": ROUTES, "faults": {"1": "rate_limit", "2": "server_error", "3": "broken_json",
                                                        "4": "no_choices"}})
    backoffs = []
    client = ChatClient(server.url, "fake-model", max_attempts=6, gate=RateGate(), sleep=backoffs.append)
    started = time.monotonic()
    completion = client.complete(MESSAGES, seed=1)
    assert completion.text == "second" and completion.attempts == 5
    assert time.monotonic() - started >= 1.0  # Retry-After: 1, waited for real
    assert len(backoffs) == 3 and backoffs == sorted(backoffs) and backoffs[2] >= 1.0  # exponential, jittered
    assert completion.prompt_tokens == len("hello there") // 4
    assert [r["fault"] for r in server.requests()] == ["rate_limit", "server_error", "broken_json", "no_choices", None]


def test_rate_limits_are_waited_out_without_spending_attempts(fake_server):
    server = fake_server({"routes": ROUTES, "faults": {"1": "rate_limit", "2": "rate_limit", "3": "rate_limit",
                                                        "4": "server_error"}})
    client = ChatClient(server.url, "fake-model", max_attempts=2, gate=RateGate(), sleep=lambda s: None)
    started = time.monotonic()
    completion = client.complete(MESSAGES, seed=0)
    assert completion.text == "first" and completion.attempts == 5
    assert time.monotonic() - started >= 3.0  # three Retry-After: 1, each waited for real


def test_rate_limits_past_the_patience_give_up(fake_server):
    server = fake_server({"routes": ROUTES, "faults": {str(i): "rate_limit" for i in range(1, 10)}})
    client = ChatClient(server.url, "fake-model", max_attempts=8, rate_limit_patience_s=1.5)
    with pytest.raises(GenerateError, match=r"rate limited for longer than 1.5 s"):
        client.complete(MESSAGES)
    assert len(server.requests()) == 2


def test_a_client_error_is_not_retried_and_names_the_url(fake_server):
    server = fake_server({"routes": ROUTES})
    client = ChatClient(server.url, "no-such-model")
    with pytest.raises(GenerateError, match=r"/v1/chat/completions: HTTP 404: .*no-such-model not found"):
        client.complete(MESSAGES)
    assert len(server.requests()) == 1


def test_giving_up_says_what_failed_last(fake_server):
    server = fake_server({"routes": ROUTES, "faults": {"1": "server_error", "2": "server_error"}})
    client = ChatClient(server.url, "fake-model", max_attempts=2, sleep=lambda s: None)
    with pytest.raises(GenerateError, match=r"gave up after 2 attempts \(last: HTTP 500\)"):
        client.complete(MESSAGES)


def test_retry_after_reads_seconds_and_dates():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert 0 <= retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") <= 0.0 + 1e-9


def test_the_rate_gate_holds_every_worker():
    now = [0.0]
    slept = []
    gate = RateGate(clock=lambda: now[0], sleep=lambda s: (slept.append(s), now.__setitem__(0, now[0] + s)))
    gate.hold_off(2.5)
    gate.wait()
    assert slept == [2.5]
    gate.wait()
    assert slept == [2.5]
