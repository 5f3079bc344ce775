"""What one API request returned, whatever the API's shape: its choices (text, reasoning,
finish reason; several with --n) and its token usage. TransientError marks a request to retry."""
from dataclasses import dataclass


class TransientError(Exception):
    def __init__(self, message: str, wait_s: float | None = None, rate_limited: bool = False):
        super().__init__(message)
        self.wait_s, self.rate_limited = wait_s, rate_limited


@dataclass(frozen=True)
class Choice:
    text: str
    reasoning: str | None   # a reasoning model's thinking, where the API returns it
    finish_reason: str


@dataclass(frozen=True)
class Reply:
    choices: list
    prompt_tokens: int | None
    completion_tokens: int | None


def malformed(e: Exception) -> TransientError:
    return TransientError(f"malformed completion ({type(e).__name__}: {str(e)[:80]})")
