"""A call's outputs written to their file on a thread of their own while the job goes on.

Writing is CPU and disk work only. On the job's thread it cost a core candidate job 5.7 s at
8 slots on the H200, 4.4 s of it waiting to get the device share back after the write (an idle
stretch), while timing jobs measured. Here the job goes on to its next call, and pauses for a
timing job only at its usual pause points. One write is in flight at a time, so at most one
call's outputs wait beside the next call's. The job waits for the last write before `done`: the
reference job reads the files.
"""

import threading

from .output_files import save_outputs
from ..protocol.phases import phase


class OutputSaver:
    def __init__(self):
        self._thread = None
        self._error = None

    def save(self, path: str, outputs: list) -> None:
        """Writes `outputs` (plain CPU tensors that own their memory) to `path` in the
        background, once the write before it has finished."""
        self.wait()

        def write():
            try:
                with phase("write_outputs"):  # overlaps the job's own work
                    save_outputs(path, outputs, owned=True)
            except BaseException as exc:  # raised on the job's thread by wait()
                self._error = exc

        self._thread = threading.Thread(target=write, name="keval-output-saver", daemon=True)
        self._thread.start()

    def wait(self, raise_error: bool = True) -> None:
        """Until the write in flight has finished; its failure is raised here."""
        if self._thread is not None:
            with phase("save_outputs"):  # what the job waited for the writes
                self._thread.join()
            self._thread = None
        error, self._error = self._error, None
        if error is not None and raise_error:
            raise error
