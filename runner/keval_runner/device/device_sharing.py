"""Memory one process owns and another maps: the warden's inputs as the guest sees them.

CUDA: the driver's virtual memory calls (cuMemCreate, exported as a POSIX file descriptor,
cuMemImportFromShareableHandle and cuMemMap in the guest) through libcuda. Not legacy CUDA IPC
(cuIpcOpenMemHandle failed across uids on the H200), and not torch's tensor sharing, whose
reference counter lives in a /dev/shm file the guest's private /dev/shm cannot see. Both sides
wrap the mapped pointer as a tensor through __cuda_array_interface__.

CPU: a memfd the warden fills and passes over the channel (SCM_RIGHTS); both map it shared.
"""

import ctypes
import mmap
import os

import torch

from . import peak_memory

CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0
CUDA_ERROR_OUT_OF_MEMORY = 2


class SharingError(RuntimeError):
    pass


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


_U64, _SIZE = ctypes.c_uint64, ctypes.c_size_t
_SIGNATURES = {
    "cuMemGetAllocationGranularity": [ctypes.POINTER(_SIZE), ctypes.POINTER(_AllocationProp), ctypes.c_int],
    "cuMemCreate": [ctypes.POINTER(_U64), _SIZE, ctypes.POINTER(_AllocationProp), ctypes.c_ulonglong],
    "cuMemAddressReserve": [ctypes.POINTER(_U64), _SIZE, _SIZE, _U64, ctypes.c_ulonglong],
    "cuMemMap": [_U64, _SIZE, _SIZE, _U64, ctypes.c_ulonglong],
    "cuMemSetAccess": [_U64, _SIZE, ctypes.POINTER(_AccessDesc), _SIZE],
    "cuMemExportToShareableHandle": [ctypes.c_void_p, _U64, ctypes.c_int, ctypes.c_ulonglong],
    "cuMemImportFromShareableHandle": [ctypes.POINTER(_U64), ctypes.c_void_p, ctypes.c_int],
    "cuMemUnmap": [_U64, _SIZE],
    "cuMemAddressFree": [_U64, _SIZE],
    "cuMemRelease": [_U64],
    # host memory the GPU reaches (clock_words.py)
    "cuMemHostRegister_v2": [ctypes.c_void_p, _SIZE, ctypes.c_uint],
    "cuMemHostGetDevicePointer_v2": [ctypes.POINTER(_U64), ctypes.c_void_p, ctypes.c_uint],
    "cuMemHostUnregister": [ctypes.c_void_p],
    # stream memory operations (stream_flags.py)
    "cuStreamWaitValue32_v2": [ctypes.c_void_p, _U64, ctypes.c_uint32, ctypes.c_uint],
    "cuStreamWriteValue32_v2": [ctypes.c_void_p, _U64, ctypes.c_uint32, ctypes.c_uint],
}
_loaded = {}  # filled once, never rebound: the guest's snapshot of the runner would see a rebinding


def driver():
    if "libcuda" not in _loaded:
        try:
            library = ctypes.CDLL("libcuda.so.1")
        except OSError as exc:
            raise SharingError(f"libcuda.so.1 cannot be loaded: {exc}") from exc
        for name, argtypes in _SIGNATURES.items():
            getattr(library, name).argtypes = argtypes
            getattr(library, name).restype = ctypes.c_int
        _loaded["libcuda"] = library
    return _loaded["libcuda"]


def _check(result: int, what: str) -> None:
    if result == CUDA_ERROR_OUT_OF_MEMORY:  # named, so the job is retried alone (out_of_memory_seen)
        raise SharingError(f"{what} failed with CUDA driver error {result} (CUDA_ERROR_OUT_OF_MEMORY)")
    if result != 0:
        raise SharingError(f"{what} failed with CUDA driver error {result}")


def _device_location(ordinal: int) -> _Location:
    return _Location(CU_MEM_LOCATION_TYPE_DEVICE, ordinal)


class _DeviceArray:
    """What torch.as_tensor needs to wrap foreign device memory without copying it."""

    def __init__(self, pointer: int, nbytes: int):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (pointer, False),
                                         "version": 3, "strides": None}


class _Exported:
    """Memory whose descriptor `fd` another process can map, until close_fd."""

    fd = -1

    def close_fd(self) -> None:
        """Closes the descriptor (memory no other process will map): the mapping stays."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class DeviceBuffer(_Exported):
    """nbytes of device memory made with the driver's virtual memory calls, exportable as a file
    descriptor (legacy CUDA IPC needs the importer to have ptrace rights over the exporter, which
    the guest must not have: the H200 refused it across uids; a descriptor passed over the
    channel is the capability itself). `tensor` is a uint8 view of it. With fd given, it maps
    memory another process exported (the guest's side)."""

    def __init__(self, nbytes: int, device: torch.device, fd: int = -1, size: int = 0):
        cuda = driver()
        self.nbytes = max(1, int(nbytes))
        ordinal = device.index if device.index is not None else torch.cuda.current_device()
        self.handle, self.pointer, self.fd, self.exported = _U64(), _U64(), -1, fd < 0
        if fd < 0:
            prop = _AllocationProp(CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                   _device_location(ordinal))
            granularity = _SIZE()
            _check(cuda.cuMemGetAllocationGranularity(ctypes.byref(granularity), ctypes.byref(prop),
                                                        CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity")
            step = max(1, granularity.value)
            self.size = -(-self.nbytes // step) * step
            _check(cuda.cuMemCreate(ctypes.byref(self.handle), self.size, ctypes.byref(prop), 0), "cuMemCreate")
            shared = ctypes.c_int(-1)
            _check(cuda.cuMemExportToShareableHandle(ctypes.byref(shared), self.handle,
                                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                   "cuMemExportToShareableHandle")
            self.fd = shared.value
            peak_memory.shared_device_allocated(self.size)
        else:
            self.size = int(size)
            _check(cuda.cuMemImportFromShareableHandle(ctypes.byref(self.handle), ctypes.c_void_p(fd),
                                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                   "cuMemImportFromShareableHandle")
        _check(cuda.cuMemAddressReserve(ctypes.byref(self.pointer), self.size, 0, 0, 0), "cuMemAddressReserve")
        _check(cuda.cuMemMap(self.pointer, self.size, 0, self.handle, 0), "cuMemMap")
        access = _AccessDesc(_device_location(ordinal), CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
        _check(cuda.cuMemSetAccess(self.pointer, self.size, ctypes.byref(access), 1), "cuMemSetAccess")
        self.tensor = torch.as_tensor(_DeviceArray(self.pointer.value, self.nbytes), device=device)

    def close(self) -> None:
        """Unmaps and releases it (the memory lives on while another process maps it)."""
        if self.tensor is None:
            return
        torch.cuda.synchronize()
        self.tensor = None
        cuda = driver()
        cuda.cuMemUnmap(self.pointer, self.size)
        cuda.cuMemAddressFree(self.pointer, self.size)
        cuda.cuMemRelease(self.handle)
        if self.exported:
            peak_memory.shared_device_released(self.size)
        self.close_fd()


class HostBuffer(_Exported):
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
        self.close_fd()


def shared_allocator(buffers: list, needed=None):
    """An allocator for checks.Guarded: memory the guest can map (a memfd on the CPU, a
    DeviceBuffer on a GPU); each buffer is kept in `buffers` (for its fd) until the warden is
    done with the call.

    needed: {device: bytes} the call's allocations take in all (checks.guarded_bytes_by_device);
    one buffer a device then holds them one after another. So a call needs one descriptor, not
    one an input (a list of 300 tensors, or 16 input sets of 16, went past the 253 a message
    can carry), and on a GPU one rounding up to the driver's 2 MiB. An allocation that does
    not fit gets a buffer of its own."""
    needed = dict(needed or {})
    arenas = {}  # device -> [the buffer's tensor, its next free byte]

    def own(nbytes: int, device: torch.device):
        shared = HostBuffer(nbytes) if device.type == "cpu" else DeviceBuffer(nbytes, device)
        buffers.append(shared)
        return shared.tensor

    def allocate(nbytes: int, device: torch.device) -> torch.Tensor:
        arena = arenas.get(device)
        if arena is None and needed.get(device, 0) >= nbytes:
            arena = arenas[device] = [own(needed.pop(device), device), 0]
        if arena is None or arena[1] + nbytes > arena[0].numel():
            return own(nbytes, device)
        start = arena[1]
        arena[1] += nbytes
        return arena[0][start: start + nbytes]
    return allocate
