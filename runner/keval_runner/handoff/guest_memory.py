"""Reading the stopped guest's memory from the warden (process_vm_readv).

The warden reads a timed call's outputs where the guest says they lie, with the guest stopped:
nothing of it runs while the bytes are read, so what is read is what the call had left when
its clock stopped. An address the guest made up reads someone else's bytes or fails; either
way the comparison with the reference decides, never the guest's word.
"""

import ctypes
import ctypes.util
import os

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


_libc.process_vm_readv.argtypes = [ctypes.c_int, ctypes.POINTER(_IoVec), ctypes.c_ulong,
                                   ctypes.POINTER(_IoVec), ctypes.c_ulong, ctypes.c_ulong]
_libc.process_vm_readv.restype = ctypes.c_ssize_t

CHUNK_BYTES = 64 << 20


class GuestMemoryUnreadable(Exception):
    """The guest's memory at that place could not be read (unmapped, or no permission)."""


def read_into(pid: int, address: int, buffer: bytearray) -> None:
    """Fills `buffer` with the guest's bytes from `address` on."""
    if address <= 0 or address + len(buffer) >= 1 << 64:
        raise GuestMemoryUnreadable(f"address {address:#x} is not a user address")
    view = (ctypes.c_char * len(buffer)).from_buffer(buffer)
    base = ctypes.addressof(view)
    done = 0
    while done < len(buffer):
        length = min(CHUNK_BYTES, len(buffer) - done)
        local = _IoVec(base + done, length)
        remote = _IoVec(address + done, length)
        got = _libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if got <= 0:
            errno = ctypes.get_errno()
            raise GuestMemoryUnreadable(f"{length} bytes at {address + done:#x}: {os.strerror(errno) if got < 0 else 'none read'}")
        done += got
