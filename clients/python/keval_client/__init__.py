"""keval_client: rewards from `keval serve` for RL trainers (docs/client.md)."""
from .aio import AsyncKevalClient
from .client import KevalClient
from .errors import JobTimeout, KevalError, RequestRejected, ServerUnavailable
from .results import Result, Speedup, Submission
from .shaping import SHAPINGS
from .transport import RetryPolicy

__all__ = ["AsyncKevalClient", "KevalClient", "JobTimeout", "KevalError", "RequestRejected", "ServerUnavailable",
           "Result", "Speedup", "Submission", "SHAPINGS", "RetryPolicy"]
