"""The zygote's request lines, each read into one reused buffer that a forked job zeroes: a
line holds every case's seed and stays referenced by the outer frames of the stack that the
job, and the guest forked from it, inherit."""


class RequestLines:
    def __init__(self, stream):
        self._stream = stream
        self._line = bytearray()

    def next(self) -> bytearray:
        """The next line (with its newline) in the shared buffer; empty once the stream closed."""
        self._line[:] = self._stream.readline()
        return self._line

    def forget(self) -> None:
        """Zeroes the line in place, so every frame that holds it sees zeros (a forked job's copy)."""
        self._line[:] = bytes(len(self._line))
