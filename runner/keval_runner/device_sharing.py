"""Device memory one process owns and another maps: the warden's inputs as the guest sees them.

CUDA: the driver's IPC (cuIpcGetMemHandle / cuIpcOpenMemHandle) through libcuda, not torch's
tensor sharing, whose reference counter lives in a /dev/shm file the guest's private /dev/shm
cannot see. The guest wraps the mapped pointer as a tensor through __cuda_array_interface__;
the warden keeps the allocation alive until the guest has finished with it.

CPU: a memfd the warden fills and passes over the channel (SCM_RIGHTS); both map it shared.
"""

import ctypes
import mmap
import os

import torch

IPC_HANDLE_BYTES = 64
CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1


class SharingError(RuntimeError):
    pass


_cuda = None


def _driver():
    global _cuda
    if _cuda is None:
        try:
            _cuda = ctypes.CDLL("libcuda.so.1")
        except OSError as exc:
            raise SharingError(f"libcuda.so.1 cannot be loaded: {exc}") from exc
    return _cuda


def _check(result: int, what: str) -> None:
    if result != 0:
        raise SharingError(f"{what} failed with CUDA driver error {result}")


class _Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * IPC_HANDLE_BYTES)]


def export_cuda(buffer: torch.Tensor) -> dict:
    """The handle of the allocation holding buffer (uint8, contiguous) and buffer's place in it."""
    driver = _driver()
    pointer = ctypes.c_uint64(buffer.data_ptr())
    base, size = ctypes.c_uint64(), ctypes.c_size_t()
    _check(driver.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), pointer), "cuMemGetAddressRange")
    handle = _Handle()
    _check(driver.cuIpcGetMemHandle(ctypes.byref(handle), base), "cuIpcGetMemHandle")
    return {"handle": bytes(handle.reserved).hex(), "offset": buffer.data_ptr() - base.value,
            "nbytes": buffer.numel()}


class _DeviceArray:
    """What torch.as_tensor needs to wrap foreign device memory without copying it."""

    def __init__(self, pointer: int, nbytes: int):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (pointer, False),
                                         "version": 3, "strides": None}


class CudaImports:
    """The guest's side: each allocation opened once (the driver refuses a second mapping of one
    handle in a context), kept open for the process's life."""

    def __init__(self, device: torch.device):
        self.device = device
        self.opened = {}

    def buffer(self, exported: dict) -> torch.Tensor:
        handle_hex = exported["handle"]
        base = self.opened.get(handle_hex)
        if base is None:
            handle = _Handle()
            handle.reserved = bytes.fromhex(handle_hex)
            pointer = ctypes.c_uint64()
            _check(_driver().cuIpcOpenMemHandle_v2(ctypes.byref(pointer), handle,
                                                   CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                   "cuIpcOpenMemHandle")
            base = self.opened[handle_hex] = pointer.value
        array = _DeviceArray(base + int(exported["offset"]), int(exported["nbytes"]))
        return torch.as_tensor(array, device=self.device)


class HostBuffer:
    """nbytes of memfd-backed memory, mapped here; `tensor` is a uint8 view of all of it."""

    def __init__(self, nbytes: int, fd: int = -1):
        self.nbytes = max(1, int(nbytes))
        if fd < 0:
            fd = os.memfd_create("keval-shared", os.MFD_CLOEXEC)
            os.ftruncate(fd, self.nbytes)
        self.fd = fd
        self.map = mmap.mmap(fd, self.nbytes, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.tensor = torch.frombuffer(self.map, dtype=torch.uint8, count=self.nbytes)

    def close(self) -> None:
        self.tensor = None
        try:
            self.map.close()
        except BufferError:
            pass  # a view is still alive: the mapping goes with the process
        os.close(self.fd)


def host_allocator(buffers: list):
    """An allocator for checks.Guarded: CPU memory the guest can map; each buffer is kept in
    `buffers` (for its fd) until the warden is done with the call."""
    def allocate(nbytes: int, device: torch.device) -> torch.Tensor:
        if device.type != "cpu":
            return torch.empty(nbytes, dtype=torch.uint8, device=device)
        shared = HostBuffer(nbytes)
        buffers.append(shared)
        return shared.tensor
    return allocate
