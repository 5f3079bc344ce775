"""The warden <-> guest channel: a Unix stream socket carrying framed messages.

A frame is a 16-byte prefix (header length, payload length), a JSON header, then raw payload
bytes (a call's outputs); file descriptors (shared input memory) ride on the prefix. The guest
is hostile, so the warden reads with limits and never unpickles what the guest sends: a
malformed frame is a ChannelError, never a crash of the warden. The warden's requests carry
the arguments' plain Python values pickled (the guest trusts the warden, not the reverse).
"""

import json
import os
import socket
import struct

PREFIX = struct.Struct("!QQ")
MAX_HEADER_BYTES = 4 << 20
MAX_FDS = 256


class ChannelError(Exception):
    """The other side closed the channel."""


class FrameError(ChannelError):
    """The other side sent something that is not a frame (too large, not JSON)."""


class Channel:
    def __init__(self, sock: socket.socket, max_payload_bytes: int = 1 << 40):
        self.sock = sock
        self.max_payload_bytes = max_payload_bytes

    @classmethod
    def pair(cls):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        return cls(a), cls(b)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()

    # -- sending ---------------------------------------------------------------------------

    def send(self, header: dict, payload=(), fds=()) -> None:
        """payload: byte-like chunks sent one after another (no joined copy of large outputs)."""
        chunks = [memoryview(c).cast("B") for c in payload]
        encoded = json.dumps(header, separators=(",", ":")).encode()
        prefix = PREFIX.pack(len(encoded), sum(c.nbytes for c in chunks))
        try:
            if fds:
                socket.send_fds(self.sock, [prefix], list(fds))
            else:
                self.sock.sendall(prefix)
            self.sock.sendall(encoded)
            for chunk in chunks:
                self.sock.sendall(chunk)
        except OSError as exc:
            raise ChannelError(f"the channel closed while sending: {exc}") from exc

    # -- receiving -------------------------------------------------------------------------

    def _read_exactly(self, view: memoryview) -> None:
        while view.nbytes:
            got = self.sock.recv_into(view)
            if got == 0:
                raise ChannelError("the channel closed mid-frame")
            view = view[got:]

    def _read_prefix(self):
        data, fds = b"", []
        while len(data) < PREFIX.size:
            try:
                chunk, more, _, _ = socket.recv_fds(self.sock, PREFIX.size - len(data), MAX_FDS)
            except OSError as exc:
                raise ChannelError(f"the channel failed: {exc}") from exc
            if not chunk:
                for fd in fds + more:
                    os.close(fd)
                raise ChannelError("the channel closed")
            data += chunk
            fds += more
        return PREFIX.unpack(data), fds

    def receive(self):
        """(header, payload as a bytearray, fds)."""
        (header_bytes, payload_bytes), fds = self._read_prefix()
        try:
            if header_bytes > MAX_HEADER_BYTES or payload_bytes > self.max_payload_bytes:
                raise FrameError(f"frame too large (header {header_bytes} B, payload {payload_bytes} B)")
            raw = bytearray(header_bytes)
            self._read_exactly(memoryview(raw))
            try:
                header = json.loads(raw)
            except ValueError as exc:
                raise FrameError(f"frame header is not JSON: {exc}") from exc
            if not isinstance(header, dict):
                raise FrameError("frame header is not a JSON object")
            payload = bytearray(payload_bytes)
            self._read_exactly(memoryview(payload))
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        return header, payload, fds
