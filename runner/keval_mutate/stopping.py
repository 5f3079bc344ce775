"""Ctrl-C (or SIGTERM, SIGHUP) during `report`: the differential check stops at once and the
report is written for what was judged and checked, marked partial.

keval passes each signal on to the report once (engine/runner/python_tool.h); the check's own
processes lead their own group, which the report kills (equivalence.py). Only the first signal
counts: a second never cuts the report's files short."""
import contextlib
import signal

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    def __init__(self, number: int):
        super().__init__(f"signal {number}")
        self.number = number


class StopSignals:
    """Installed for the report's life: a signal is remembered, and raised as Stopped only
    inside interruptible() (the check), so the files are always written whole."""

    def __init__(self):
        self.number = None
        self._raising = False
        for number in SIGNALS:
            signal.signal(number, self._on_signal)

    def _on_signal(self, number, _frame):
        if self.number is None:
            self.number = number
            if self._raising:
                raise Stopped(number)

    @property
    def name(self) -> str:
        return signal.Signals(self.number).name if self.number else ""

    @contextlib.contextmanager
    def interruptible(self):
        if self.number is not None:
            raise Stopped(self.number)
        self._raising = True
        try:
            yield
        finally:
            self._raising = False
