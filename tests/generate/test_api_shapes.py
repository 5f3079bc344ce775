"""The HTTP client against real fake servers of both API shapes (fake_openai_server.py,
fake_anthropic_server.py): request settings reach the server, answers streamed as server-sent
events read the same as plain JSON ones, reasoning is kept, n answers come from one request."""
import pytest

from conftest import ANTHROPIC_SERVER
from keval_generate import anthropic_api, openai_api
from keval_generate.chat_client import ChatClient, RateGate
from keval_generate.request_settings import RequestSettings

ROUTES = [{"match": "hello", "responses": ["first answer, long enough to stream in pieces", "second", "third"],
           "reasoning": "Let me think about this carefully."}]
MESSAGES = [{"role": "system", "content": "You write kernels."}, {"role": "user", "content": "hello there"}]


def openai_client(server, **settings):
    return ChatClient(server.url, "fake-model", api_key="k", gate=RateGate(), sleep=lambda s: None,
                      settings=RequestSettings(**settings))


def anthropic_client(server, **settings):
    return ChatClient(server.url, "claude-fake", api_key="sk-ant", gate=RateGate(), sleep=lambda s: None,
                      api=anthropic_api, settings=RequestSettings(**settings))


@pytest.mark.timeout(60)
def test_openai_settings_headers_stream_reasoning_and_n(fake_server):
    server = fake_server({"routes": ROUTES})
    plain = openai_client(server, temperature=0.3, top_p=0.9, stop=("```\n\n",), max_tokens=77,
                          headers=(("X-Team", "kernels"),)).complete(MESSAGES, seed=0)
    streamed = openai_client(server, stream=True).complete(MESSAGES, seed=0)
    assert plain.text == streamed.text == ROUTES[0]["responses"][0]
    assert plain.reasoning == streamed.reasoning == ROUTES[0]["reasoning"]
    assert streamed.finish_reason == "stop" and streamed.prompt_tokens == plain.prompt_tokens
    batch = openai_client(server, reasoning_effort="low").complete(MESSAGES, seed=1, n=3)
    assert [c.text for c in batch.choices] == ["second", "third", ROUTES[0]["responses"][0]]
    first, second, third = server.requests()
    assert first["settings"] == {"model": "fake-model", "temperature": 0.3, "top_p": 0.9, "stop": ["```\n\n"],
                                 "max_tokens": 77, "seed": 0}
    assert first["headers"]["x-team"] == "kernels" and first["headers"]["authorization"] == "Bearer k"
    assert second["settings"]["stream"] is True and second["settings"]["stream_options"] == {"include_usage": True}
    assert third["settings"]["n"] == 3 and third["settings"]["reasoning_effort"] == "low"


@pytest.mark.timeout(60)
def test_stream_asked_of_a_server_that_does_not_stream_reads_its_json(fake_server):
    server = fake_server({"routes": ROUTES, "stream": False})
    assert openai_client(server, stream=True).complete(MESSAGES, seed=2).text == "third"


@pytest.mark.timeout(60)
def test_anthropic_messages_plain_and_streamed(fake_server):
    server = fake_server({"routes": ROUTES, "faults": {"1": "overloaded"}}, ANTHROPIC_SERVER)
    plain = anthropic_client(server, temperature=0.5, stop=("STOP",), thinking_budget=2048).complete(MESSAGES)
    streamed = anthropic_client(server, stream=True, max_tokens=100).complete(MESSAGES)
    assert plain.attempts == 2  # the 529 (overloaded) was retried
    assert plain.text == "second" and streamed.text == "third"
    assert plain.reasoning == streamed.reasoning == ROUTES[0]["reasoning"]
    assert plain.finish_reason == streamed.finish_reason == "end_turn"
    assert streamed.prompt_tokens == plain.prompt_tokens > 0 and streamed.completion_tokens == len("third") // 4
    _, first, second = server.requests()
    assert first["headers"]["x-api-key"] == "sk-ant" and first["headers"]["anthropic-version"] == "2023-06-01"
    assert "authorization" not in first["headers"]
    assert first["settings"] == {"model": "claude-fake", "max_tokens": anthropic_api.MAX_TOKENS_DEFAULT,
                                 "system": "You write kernels.", "temperature": 0.5, "stop_sequences": ["STOP"],
                                 "thinking": {"type": "enabled", "budget_tokens": 2048}}
    assert first["messages"] == [MESSAGES[1]]  # the system prompt is a field of its own
    assert second["settings"]["stream"] is True and second["settings"]["max_tokens"] == 100


def test_stream_parsers_read_events_split_over_lines():
    lines = [b": ping\n", b"data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"ab\"}}]}\n", b"\n",
             b"data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"c\"}, \"finish_reason\": \"length\"}]}\n",
             b"\n", b"data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 2}}\n", b"\n",
             b"data: [DONE]\n", b"\n"]
    reply = openai_api.parse_stream(lines)
    assert [(c.text, c.finish_reason) for c in reply.choices] == [("abc", "length")]
    assert (reply.prompt_tokens, reply.completion_tokens) == (3, 2)


@pytest.mark.timeout(60)
def test_anthropic_gets_no_empty_message_after_an_empty_answer(fake_server):
    """A refinement turn after a null answer: the Messages API refuses empty content."""
    server = fake_server({"routes": ROUTES}, ANTHROPIC_SERVER)
    turn = MESSAGES + [{"role": "assistant", "content": ""}, {"role": "user", "content": "hello again"}]
    assert anthropic_client(server).complete(turn).text == "first answer, long enough to stream in pieces"
    assert server.requests()[0]["messages"][1] == {"role": "assistant", "content": anthropic_api.EMPTY_ANSWER}
