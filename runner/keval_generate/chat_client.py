"""OpenAI-compatible chat completions (vLLM, SGLang, hosted APIs) over HTTP, with retries.

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

from .errors import GenerateError

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


class TransientError(Exception):
    def __init__(self, message: str, wait_s: float | None = None, rate_limited: bool = False):
        super().__init__(message)
        self.wait_s, self.rate_limited = wait_s, rate_limited


def parse_completion(body: bytes) -> tuple:
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        text = choice["message"]["content"]
        if text is None:  # a reasoning model out of tokens: an empty answer, not a fault to retry
            text = ""
        if not isinstance(text, str):
            raise TypeError("content is not a string")
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise TransientError(f"malformed completion ({type(e).__name__}: {str(e)[:80]})")
    usage = data.get("usage") or {}
    return text, usage.get("prompt_tokens"), usage.get("completion_tokens"), str(choice.get("finish_reason") or "")


class ChatClient:
    def __init__(self, base_url: str, model: str, api_key: str = "", temperature: float | None = None,
                 max_tokens: int | None = None, timeout_s: float = 600.0, max_attempts: int = 8,
                 gate: RateGate | None = None, sleep=time.sleep, clock=time.monotonic,
                 rate_limit_patience_s: float = RATE_LIMIT_PATIENCE_S):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key = model, api_key
        self.temperature, self.max_tokens = temperature, max_tokens
        self.timeout_s, self.max_attempts = timeout_s, max_attempts
        self.gate = gate or RateGate(clock, sleep)
        self.sleep, self.clock = sleep, clock
        self.rate_limit_patience_s = rate_limit_patience_s

    def request_body(self, messages: list, seed: int | None) -> bytes:
        body = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if seed is not None:
            body["seed"] = seed
        return json.dumps(body).encode()

    def attempt(self, body: bytes) -> tuple:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        started = self.clock()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode("utf-8", "replace").replace("\n", " ")
            if e.code == 429:
                raise TransientError("429 rate limited", retry_after_seconds(e.headers.get("Retry-After")), True)
            if e.code >= 500:
                raise TransientError(f"HTTP {e.code}", retry_after_seconds(e.headers.get("Retry-After")))
            raise GenerateError(self.url, f"HTTP {e.code}: {detail}")
        except (urllib.error.URLError, OSError, TimeoutError) as e:
            raise TransientError(f"connection: {getattr(e, 'reason', e)}")
        return parse_completion(raw) + (self.clock() - started,)

    def complete(self, messages: list, seed: int | None = None) -> Completion:
        body = self.request_body(messages, seed)
        last, attempt, attempts_sent, rate_limited_s = "", 0, 0, 0.0
        while attempt < self.max_attempts:
            self.gate.wait()
            attempts_sent += 1
            try:
                text, prompt_tokens, completion_tokens, finish, latency = self.attempt(body)
                return Completion(text, prompt_tokens, completion_tokens, latency, attempts_sent, finish)
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
