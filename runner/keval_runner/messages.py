"""JSON-lines writer for runner -> controller messages.

Each message is one JSON object on one line, written with a single os.write loop on a
raw file descriptor (no Python buffering), so a message is never interleaved with
anything else and a killed process leaves at most one truncated trailing line.

Non-finite floats are not valid JSON, so they are sent as the strings "nan", "inf"
and "-inf" (json.dumps runs with allow_nan=False to make sure none slips through).
"""

import json
import math
import os

MAX_MESSAGE_CHARS = 2000


def json_safe(value):
    """Returns value with tuples as lists and non-finite floats as strings."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def encode(message: dict) -> bytes:
    text = json.dumps(json_safe(message), allow_nan=False, separators=(",", ":"))
    return (text + "\n").encode("utf-8")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    text = str(text)
    if len(text) <= limit:
        return text
    return text[: limit - 15] + " ...[truncated]"


class MessageWriter:
    """Sends messages for one job (or for the zygote, job "") to one fd."""

    def __init__(self, fd: int, job: str):
        self.fd = fd
        self.job = job

    def send(self, type_: str, **fields) -> None:
        message = {"job": self.job, "type": type_}
        message.update(fields)
        write_all(self.fd, encode(message))

    def error(self, stage: str, error_kind: str, message: str, line=None,
              case=None, dtype=None, seed=None, **extra) -> None:
        self.send("error", stage=stage, error_kind=error_kind, message=clip(message),
                  line=line, case=case, dtype=dtype, seed=seed, **extra)
