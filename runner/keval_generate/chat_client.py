"""Chat requests over HTTP, with retries, in either API shape (openai_api: OpenAI-compatible
servers such as vLLM, SGLang and hosted APIs; anthropic_api: the Anthropic Messages API). A reply
streamed as server-sent events (Content-Type text/event-stream) is read as it streams; one
that is not is read as JSON, so --stream works with a server that does not stream.

Retried: connection errors and timeouts, 429 (after the server's Retry-After, shared by every
worker through RateGate so they all hold off), 5xx, and answers that are not the API's JSON.
A 429 spends no attempt of --max-attempts: the server is asking for patience, not failing; a
request gives up only after RATE_LIMIT_PATIENCE_S of being rate limited.
Not retried: other 4xx (a wrong model name or key does not get better), one line naming it."""
import email.utils
import json
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from . import openai_api
from .api_reply import TransientError
from .errors import GenerateError
from .request_settings import RequestSettings

MAX_BACKOFF_S = 60.0
RATE_LIMIT_PATIENCE_S = 3600.0  # one request's total wait on 429s before it gives up


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float    # the successful request's own time
    attempts: int
    finish_reason: str
    reasoning: str | None = None
    choices: tuple = ()  # every answer of the request (several with --n), the first is `text`


class RateGate:
    """The time before which no worker sends a request (raised by a 429's Retry-After)."""

    def __init__(self, clock=time.monotonic, sleep=time.sleep):
        self.clock, self.sleep = clock, sleep
        self.lock = threading.Lock()
        self.not_before = 0.0

    def hold_off(self, seconds: float):
        with self.lock:
            self.not_before = max(self.not_before, self.clock() + seconds)

    def wait(self):
        while True:
            with self.lock:
                left = self.not_before - self.clock()
            if left <= 0:
                return
            self.sleep(left)


def retry_after_seconds(value) -> float | None:
    """Retry-After as seconds (RFC 9110: delta-seconds or an HTTP date); None when absent or bad."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


class ChatClient:
    def __init__(self, base_url: str, model: str, api_key: str = "", temperature: float | None = None,
                 max_tokens: int | None = None, timeout_s: float = 600.0, max_attempts: int = 8,
                 gate: RateGate | None = None, sleep=time.sleep, clock=time.monotonic,
                 rate_limit_patience_s: float = RATE_LIMIT_PATIENCE_S, api=openai_api,
                 settings: RequestSettings | None = None):
        self.api = api
        self.url = api.url(base_url)
        self.model, self.api_key = model, api_key
        self.settings = settings or RequestSettings(temperature=temperature, max_tokens=max_tokens)
        self.timeout_s, self.max_attempts = timeout_s, max_attempts
        self.gate = gate or RateGate(clock, sleep)
        self.sleep, self.clock = sleep, clock
        self.rate_limit_patience_s = rate_limit_patience_s

    def request_body(self, messages: list, seed: int | None, n: int = 1) -> bytes:
        return json.dumps(self.api.body(self.model, messages, self.settings, seed, n)).encode()

    def attempt(self, body: bytes) -> tuple:
        headers = {"Content-Type": "application/json", **self.api.headers(self.api_key), **dict(self.settings.headers)}
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        started = self.clock()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                if response.headers.get("Content-Type", "").startswith("text/event-stream"):
                    reply = self.api.parse_stream(response)
                else:
                    reply = self.api.parse(response.read())
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode("utf-8", "replace").replace("\n", " ")
            if e.code == 429:
                raise TransientError("429 rate limited", retry_after_seconds(e.headers.get("Retry-After")), True)
            if e.code >= 500 or e.code == 529:  # 529: Anthropic's "overloaded"
                raise TransientError(f"HTTP {e.code}", retry_after_seconds(e.headers.get("Retry-After")))
            raise GenerateError(self.url, f"HTTP {e.code}: {detail}")
        except (urllib.error.URLError, OSError, TimeoutError) as e:
            raise TransientError(f"connection: {getattr(e, 'reason', e)}")
        return reply, self.clock() - started

    def complete(self, messages: list, seed: int | None = None, n: int = 1) -> Completion:
        body = self.request_body(messages, seed, n)
        last, attempt, attempts_sent, rate_limited_s = "", 0, 0, 0.0
        while attempt < self.max_attempts:
            self.gate.wait()
            attempts_sent += 1
            try:
                reply, latency = self.attempt(body)
                if len(reply.choices) < n:
                    raise TransientError(f"{len(reply.choices)} choices where n = {n} were asked for")
                first = reply.choices[0]
                return Completion(first.text, reply.prompt_tokens, reply.completion_tokens, latency, attempts_sent,
                                  first.finish_reason, first.reasoning, tuple(reply.choices[:n]))
            except TransientError as e:
                last = str(e)
                if e.rate_limited:  # waits, spending no attempt
                    wait = e.wait_s if e.wait_s is not None else min(MAX_BACKOFF_S, 2.0 ** min(attempts_sent, 6))
                    rate_limited_s += wait
                    if rate_limited_s > self.rate_limit_patience_s:
                        raise GenerateError(self.url, f"gave up after {rate_limited_s:.0f} s of 429s "
                                                      f"(rate limited for longer than {self.rate_limit_patience_s:g} s)")
                    self.gate.hold_off(wait)
                    continue
                attempt += 1
                wait = e.wait_s if e.wait_s is not None else min(MAX_BACKOFF_S, 0.5 * 2 ** (attempt - 1))
                if e.wait_s is not None:
                    self.gate.hold_off(wait)
                elif attempt < self.max_attempts:
                    self.sleep(wait * (0.5 + random.random() / 2))
        raise GenerateError(self.url, f"gave up after {self.max_attempts} attempts (last: {last})")
