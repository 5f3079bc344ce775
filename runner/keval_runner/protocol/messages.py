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


# The functions below take what they call as default arguments, bound when this module is
# imported (in the zygote, long before any candidate code runs): a candidate that replaces
# json.dumps or os.write cannot silence or rewrite the messages (the tampering check names it).
def encode(message: dict, _dumps=json.dumps, _safe=json_safe) -> bytes:
    text = _dumps(_safe(message), allow_nan=False, separators=(",", ":"))
    return (text + "\n").encode("utf-8")


def write_all(fd: int, data: bytes, _write=os.write, _memoryview=memoryview) -> None:
    view = _memoryview(data)
    while view:
        written = _write(fd, view)
        view = view[written:]


def clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    text = str(text)
    if len(text) <= limit:
        return text
    return text[: limit - 15] + " ...[truncated]"


class MessageWriter:
    """Sends messages for one job (or for the zygote, job "") to one fd.

    Its methods and the functions they use are bound to the instance when it is made, so
    later patches of this module or class do not reach a writer made before the candidate
    loaded."""

    def __init__(self, fd: int, job: str):
        self.fd = fd
        self.job = job
        self._encode = encode
        self._write_all = write_all
        self._clip = clip
        self.send = self.send  # bound now: a patched MessageWriter.send is never used
        self.error = self.error

    def send(self, type_: str, **fields) -> None:
        message = {"job": self.job, "type": type_}
        message.update(fields)
        self._write_all(self.fd, self._encode(message))

    def error(self, stage: str, error_kind: str, message: str, line=None,
              case=None, dtype=None, seed=None, **extra) -> None:
        self.send("error", stage=stage, error_kind=error_kind, message=self._clip(message),
                  line=line, case=case, dtype=dtype, seed=seed, **extra)
