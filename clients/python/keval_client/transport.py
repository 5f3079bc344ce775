"""One HTTP exchange with keval serve, retried: connection errors, timeouts, 5xx and 429 are
tried again after a backoff (exponential with jitter, or the server's Retry-After when it sends
one); any other 4xx is raised at once. Every POST the client sends carries an idempotency key,
so sending one again never makes a second job."""
import email.utils
import json
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from .errors import RequestRejected, ServerUnavailable


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    backoff_s: float = 0.5       # the first wait; doubled each attempt
    max_backoff_s: float = 30.0

    def wait_s(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff_s)
        return min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)


def retry_after_s(value) -> float | None:
    """Retry-After as seconds (delta-seconds or an HTTP date); None when absent or unreadable."""
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


class Transport:
    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = 120.0,
                 retry: RetryPolicy = RetryPolicy(), sleep=time.sleep):
        self.base_url = base_url.rstrip("/")
        self.token, self.timeout_s, self.retry, self.sleep = token, timeout_s, retry, sleep

    def once(self, method: str, path: str, body, headers: dict, timeout_s: float) -> tuple:
        h = {"Accept": "application/json", **headers}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return response.status, json.loads(response.read() or b"null"), None
        except urllib.error.HTTPError as e:
            try:
                answer = json.loads(e.read() or b"null")
            except ValueError:
                answer = None
            return e.code, answer, retry_after_s(e.headers.get("Retry-After"))

    def call(self, method: str, path: str, body=None, headers: dict | None = None,
             extra_timeout_s: float = 0.0) -> tuple:
        """(status, JSON answer) of the first attempt that is answered with neither a 5xx nor a
        429. `extra_timeout_s`: a long poll's wait, added to the socket timeout."""
        last = ""
        for attempt in range(1, self.retry.max_attempts + 1):
            retry_after = None
            try:
                status, answer, retry_after = self.once(method, path, body, headers or {},
                                                        self.timeout_s + extra_timeout_s)
            except (urllib.error.URLError, OSError, TimeoutError, ValueError) as e:
                last = f"{method} {path}: {getattr(e, 'reason', e)}"
            else:
                if status < 400:
                    return status, answer
                message = answer.get("error") if isinstance(answer, dict) else None
                field = answer.get("field") if isinstance(answer, dict) else None
                if status != 429 and status < 500:
                    raise RequestRejected(f"{method} {path}: HTTP {status}: {message or 'no reason given'}",
                                          status, field)
                last = f"{method} {path}: HTTP {status}" + (f": {message}" if message else "")
            if attempt < self.retry.max_attempts:
                self.sleep(self.retry.wait_s(attempt, retry_after))
        raise ServerUnavailable(f"gave up after {self.retry.max_attempts} attempts (last: {last})")
