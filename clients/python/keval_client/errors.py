"""What the client raises. Expected outcomes of judging (a failing verdict) are never errors:
they are results. An error is a request the server refused, or a server that cannot be reached."""


class KevalError(Exception):
    """A request that failed. `status` is the HTTP status (None: no answer at all), `field` the
    part of the request the server named (keval serve names one in every 4xx)."""

    def __init__(self, message: str, status: int | None = None, field: str | None = None):
        super().__init__(message)
        self.status, self.field = status, field


class RequestRejected(KevalError):
    """A 4xx other than 429: sending it again cannot help (a wrong task, token, key reuse)."""


class ServerUnavailable(KevalError):
    """Every attempt failed with a connection error, a timeout, a 5xx or a 429."""


class JobTimeout(KevalError):
    """A job was not finished within the time the caller gave."""
