"""The one error type of the generation tools: its message is one line naming the file or field."""


class GenerateError(Exception):
    def __init__(self, where, message: str):
        super().__init__(f"{where}: {message}" if where else message)


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP (keval passes them on, and sends SIGTERM when it dies): handled as a
    Ctrl-C is, with the signal's own exit status."""

    def __init__(self, signal_number: int):
        super().__init__(f"signal {signal_number}")
        self.signal_number = signal_number
