"""Seconds a job spends in each phase, sent with its `done` message: where a GPU evaluation's
time goes. Phases may nest ("inputs" and "save_outputs" are parts of "calls" and
"timing"), so the figures are not meant to add up to the job's wall time."""

import contextlib
import time

_seconds = {}


def reset() -> None:
    """In a fresh child: the zygote's own figures (if any) are not this job's."""
    _seconds.clear()


@contextlib.contextmanager
def phase(name: str):
    start = time.perf_counter()
    try:
        yield
    finally:
        _seconds[name] = _seconds.get(name, 0.0) + time.perf_counter() - start


def add(name: str, seconds: float) -> None:
    """Seconds timed elsewhere (a guest's own figure for its part of a request)."""
    _seconds[name] = _seconds.get(name, 0.0) + seconds


def seconds() -> dict:
    return {name: round(value, 4) for name, value in _seconds.items()}
