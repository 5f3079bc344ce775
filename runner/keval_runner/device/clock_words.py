"""The warden's clock words on CUDA, `gate` then `done`: two 32-bit words in one page of
memfd-backed host memory that both processes map and register with their own CUDA context
(cuMemHostRegister), so each stream reaches them through its own context's mapping and each host
reads or writes them directly.

Not device memory exported to the other process: a stream wait on such a word, written by the
other process's context, never completed on the H200 (bench/runs/2026-12-05-session-27.md).
Host memory needs no context to reach another: the warden's host opens the gate with a plain
store that the guest's waiting stream sees, and sees the guest's `done` with a plain load.
"""

import ctypes
import mmap
import os

from .device_sharing import _check, driver

GATE, DONE = 0, 1
BYTES = mmap.PAGESIZE  # cuMemHostRegister takes whole pages
CU_MEMHOSTREGISTER_PORTABLE = 0x01
CU_MEMHOSTREGISTER_DEVICEMAP = 0x02


class ClockWords:
    """The two words; `fd` for the other process (closed once passed). With fd given, the
    mapping of words another process made (the guest's side)."""

    def __init__(self, fd: int = -1):
        if fd < 0:
            fd = os.memfd_create("keval-clock", os.MFD_CLOEXEC)
            os.ftruncate(fd, BYTES)
        elif os.fstat(fd).st_size < BYTES:
            raise ValueError(f"the clock words' memory is {os.fstat(fd).st_size} bytes, not {BYTES}")
        self.fd = fd
        self.map = mmap.mmap(fd, BYTES, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.words = (ctypes.c_uint32 * 2).from_buffer(self.map)
        self.host_address = ctypes.addressof(self.words)
        self.device_address = None  # set by register()

    def register(self) -> int:
        """Maps the page into this process's current CUDA context; the device address of `gate`
        (`done` is 4 bytes on)."""
        if self.device_address is None:
            cuda = driver()
            _check(cuda.cuMemHostRegister_v2(ctypes.c_void_p(self.host_address), BYTES,
                                             CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP),
                   "cuMemHostRegister")
            pointer = ctypes.c_uint64()
            _check(cuda.cuMemHostGetDevicePointer_v2(ctypes.byref(pointer), ctypes.c_void_p(self.host_address), 0),
                   "cuMemHostGetDevicePointer")
            self.device_address = pointer.value
        return self.device_address

    def gate_request(self) -> tuple:
        """(header, fds) of the guest op that maps them in the timed process."""
        return {"op": "gate", "bytes": BYTES}, [self.fd]

    def read(self) -> tuple:
        """(gate, done) as they are now."""
        return self.words[GATE], self.words[DONE]

    def set(self, word: int, value: int) -> None:
        self.words[word] = value & 0xFFFFFFFF

    def reached(self, word: int, value: int) -> bool:
        """Whether `word` is at least `value`, compared as the streams compare it (wrapping)."""
        return ((self.words[word] - value) & 0xFFFFFFFF) < 0x80000000

    def close_fd(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def close(self) -> None:
        """Unregisters and unmaps; the caller has synchronised every stream that used them."""
        if self.device_address is not None:
            driver().cuMemHostUnregister(ctypes.c_void_p(self.host_address))
            self.device_address = None
        self.close_fd()
        del self.words
        self.map.close()
