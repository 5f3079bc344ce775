"""Flags a CUDA stream waits on or writes without its host waiting: a stream waits until a 32-bit
word the GPU can reach (device memory, or host memory registered with the context) reaches a
value, or writes one (the driver's stream memory operations, cuStreamWaitValue32 /
cuStreamWriteValue32, through libcuda).

The warden's clock on CUDA (warden_gpu_clock.py) rests on them: the guest enqueues its call
behind a wait on the warden's `gate` word and ends it with a write of its `done` word, both in
host memory the two processes share (clock_words.py). A wait takes no SM.
"""

import ctypes

from .device_sharing import _check, driver

WAIT_AT_LEAST = 0  # CU_STREAM_WAIT_VALUE_GEQ (a wrapping comparison of 32-bit values)


def wait_at_least(stream, address: int, value: int) -> None:
    """`stream` (a torch.cuda.Stream) waits until the word at `address` is >= `value`."""
    _check(driver().cuStreamWaitValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value & 0xFFFFFFFF,
                                             WAIT_AT_LEAST), "cuStreamWaitValue32")


def write(stream, address: int, value: int) -> None:
    """`stream` writes `value` into the word at `address` once its earlier work is done."""
    _check(driver().cuStreamWriteValue32_v2(ctypes.c_void_p(stream.cuda_stream), address, value & 0xFFFFFFFF, 0),
           "cuStreamWriteValue32")
