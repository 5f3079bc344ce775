"""Persisting L2 lines survive the cold-L2 flush: a submission that sets L2 aside for persisting
accesses (the context's persisting-L2 limit plus an access-policy window on its stream) keeps
its data in L2 from one timed sample to the next. Before each CUDA sample the timing loop reads
that limit, sets it back to 0 and turns every persisting line back to normal (CUDA driver API
through ctypes: libcuda.so.1 is there whenever a GPU is). A limit found raised is reported
(`l2_persisting_bytes`), and the controller judges it as tampering.

A new context does not start at 0: on the H200 (driver 580) its limit reads 11796480 bytes,
and the driver rounds a set limit up to a multiple of 3932160 bytes. So `open()` sets it to 0
first; the timing job opens it before any baseline or submission code is loaded."""

import ctypes

CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06


class L2Persistence:
    def __init__(self, libcuda):
        self._get = libcuda.cuCtxGetLimit
        self._set = libcuda.cuCtxSetLimit
        self._reset = libcuda.cuCtxResetPersistingL2Cache
        self._set.argtypes = [ctypes.c_int, ctypes.c_size_t]
        self._get.argtypes = [ctypes.POINTER(ctypes.c_size_t), ctypes.c_int]

    @classmethod
    def open(cls, libcuda=None):
        """Takes charge of the current context's limit (set to 0, every line reset); None where
        the driver or these calls are missing (no GPU, an old driver)."""
        try:
            l2 = cls(libcuda or ctypes.CDLL("libcuda.so.1"))
        except (OSError, AttributeError):
            return None
        l2.clear()
        return l2

    def clear(self) -> None:
        self._set(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0)
        self._reset()

    def reset(self) -> int:
        """The persisting-L2 limit as found (bytes), after setting it to 0 and resetting every
        persisting line; 0 also when the driver refuses to say."""
        value = ctypes.c_size_t(0)
        found = value.value if self._get(ctypes.byref(value), CU_LIMIT_PERSISTING_L2_CACHE_SIZE) == 0 else 0
        if found:
            self._set(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0)
        self._reset()
        return found
