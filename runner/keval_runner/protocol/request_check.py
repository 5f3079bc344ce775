"""The controller's requests, checked once against protocol/request.schema.json.

The zygote checks every request before it forks (`request_problem`), so the job's code reads
a request whose fields have the schema's types. The schema also holds the defaults of the
settings a request may leave out (`TIMING_DEFAULTS`): the controller sends every one of them
(src/engine/settings/run_settings.h), the runner's own callers (tests, bench/) may not.
"""

import json
import os

from .schema_check import SchemaChecker

PROTOCOL_DIR = os.path.dirname(os.path.abspath(__file__))


def _load(name: str) -> dict:
    with open(os.path.join(PROTOCOL_DIR, name), encoding="utf-8") as f:
        return json.load(f)


REQUEST_SCHEMA = _load("request.schema.json")
_CHECKER = SchemaChecker(REQUEST_SCHEMA, name="request")

TIMING_DEFAULTS = {name: field["default"] for name, field in REQUEST_SCHEMA["$defs"]["timing"]["properties"].items()
                   if "default" in field}
DEFAULT_STDOUT_CAP_BYTES = REQUEST_SCHEMA["$defs"]["sandbox"]["then"]["properties"]["stdout_cap_bytes"]["default"]


def timing_setting(settings: dict, name: str):
    """The request's timing setting `name`, or the schema's default when it has none."""
    value = settings.get(name)
    return TIMING_DEFAULTS[name] if value is None else value


def warden_clocks_cuda(settings: dict) -> bool:
    """Whether the warden's own clock times CUDA samples (warden_gpu_clock.py); the environment's
    KEVAL_CUDA_CLOCK, for side-by-side benchmarks, over the request's `cuda_clock`."""
    return (os.environ.get("KEVAL_CUDA_CLOCK") or timing_setting(settings, "cuda_clock")) == "warden"


def request_problem(request) -> str:
    """Why a request cannot be served, or "" when it can."""
    return _CHECKER.first_problem(request)


def sandbox_problem(sandbox) -> str:
    """Why a request's `sandbox` field is unusable, or "" (absent counts as fine)."""
    found = _CHECKER.problems(REQUEST_SCHEMA["$defs"]["sandbox"], sandbox, "sandbox")
    return found[0] if found else ""
