"""Flags that order two processes' CUDA streams without either host waiting: a stream waits until
a 32-bit word in device memory reaches a value, or writes one (the driver's stream memory
operations, cuStreamWaitValue32 / cuStreamWriteValue32, through libcuda).

The warden's clock on CUDA (warden_gpu_clock.py) rests on them: the guest enqueues its call
behind a wait on the warden's `gate` word and ends it with a write of its `done` word; the
warden's stream opens the gate and waits for `done` between its own two events. A wait takes no
SM, so a context blocked on one yields the GPU to the other.
"""

import ctypes

from .device_sharing import SharingError

WAIT_AT_LEAST = 0  # CU_STREAM_WAIT_VALUE_GEQ (a wrapping comparison of 32-bit values)
_SIGNATURE = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
_loaded = {}


def _driver():
    if "libcuda" not in _loaded:
        try:
            library = ctypes.CDLL("libcuda.so.1")
        except OSError as exc:
            raise SharingError(f"libcuda.so.1 cannot be loaded: {exc}") from exc
        for name in ("cuStreamWaitValue32_v2", "cuStreamWriteValue32_v2"):
            getattr(library, name).argtypes = _SIGNATURE
            getattr(library, name).restype = ctypes.c_int
        _loaded["libcuda"] = library
    return _loaded["libcuda"]


def _check(result: int, what: str) -> None:
    if result != 0:
        raise SharingError(f"{what} failed with CUDA driver error {result}")


def wait_at_least(stream, address: int, value: int) -> None:
    """`stream` (a torch.cuda.Stream) waits until the word at `address` is >= `value`."""
    _check(_driver().cuStreamWaitValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value & 0xFFFFFFFF,
                                             WAIT_AT_LEAST), "cuStreamWaitValue32")


def write(stream, address: int, value: int) -> None:
    """`stream` writes `value` into the word at `address` once its earlier work is done."""
    _check(_driver().cuStreamWriteValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value & 0xFFFFFFFF, 0),
           "cuStreamWriteValue32")
