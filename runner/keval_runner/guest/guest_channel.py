"""The warden <-> guest channel: a Unix stream socket carrying framed messages.

A frame is a 16-byte prefix (header length, payload length), a JSON header, then raw payload
bytes (a call's outputs); file descriptors (shared input memory) ride on the prefix. The guest
is hostile, so the warden reads with limits and never unpickles what the guest sends: anything
that is not a frame (a length over the reader's bound, bytes that are not JSON, JSON nested
past MAX_DEPTH, a header that is not an object) is a FrameError, never a crash of the warden.
Lengths are checked before anything is allocated, and a payload is read in chunks of at most
CHUNK_BYTES, so a claimed length costs memory only as its bytes arrive. The warden's requests
carry the arguments' plain Python values pickled (the guest trusts the warden, not the reverse).
"""

import json
import os
import socket
import struct

PREFIX = struct.Struct("!QQ")
MAX_HEADER_BYTES = 4 << 20
MAX_FDS = 256
# Frames with a payload are a call's outputs sent as bytes, which only a guest that cannot seal
# them sends (guest_limits.py bounds them per call); any other frame has none. The default:
DEFAULT_MAX_PAYLOAD_BYTES = 256 << 20
CHUNK_BYTES = 1 << 20
# Every header of the protocol is a few levels deep; json.loads recurses once per level.
MAX_DEPTH = 32


class ChannelError(Exception):
    """The other side closed the channel."""


class FrameError(ChannelError):
    """The other side sent something that is not a frame (too large, not JSON, too deep)."""


def json_depth(value) -> int:
    """How deeply lists and objects nest in a parsed JSON value (a scalar is 0), without
    recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_DEPTH:  # past it the answer is already known
            stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_header(raw) -> dict:
    """A frame's JSON header as a dict, or FrameError."""
    try:
        header = json.loads(raw)
    except RecursionError as exc:  # nesting deeper than the interpreter's stack
        raise FrameError("frame header nests too deeply") from exc
    except ValueError as exc:  # not UTF-8, not JSON, an integer of too many digits
        raise FrameError(f"frame header is not JSON: {str(exc)[:200]}") from exc
    if not isinstance(header, dict):
        raise FrameError("frame header is not a JSON object")
    if json_depth(header) > MAX_DEPTH:
        raise FrameError(f"frame header nests deeper than {MAX_DEPTH} levels")
    return header


class Channel:
    def __init__(self, sock: socket.socket, max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES):
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
            try:
                got = self.sock.recv_into(view)
            except OSError as exc:
                raise ChannelError(f"the channel failed: {exc}") from exc
            if got == 0:
                raise ChannelError("the channel closed mid-frame")
            view = view[got:]

    def _read_bytes(self, count: int) -> bytearray:
        """count bytes, held in memory only as they arrive (one chunk ahead at most)."""
        data = bytearray()
        while len(data) < count:
            chunk = bytearray(min(CHUNK_BYTES, count - len(data)))
            self._read_exactly(memoryview(chunk))
            data += chunk
        return data

    def _read_prefix(self):
        data, fds = b"", []
        while len(data) < PREFIX.size:
            try:
                chunk, more, _, _ = socket.recv_fds(self.sock, PREFIX.size - len(data), MAX_FDS)
            except OSError as exc:
                for fd in fds:
                    os.close(fd)
                raise ChannelError(f"the channel failed: {exc}") from exc
            if not chunk:
                for fd in fds + more:
                    os.close(fd)
                raise ChannelError("the channel closed")
            data += chunk
            fds += more
        return PREFIX.unpack(data), fds

    def pending(self) -> bool:
        """Whether bytes wait unread (a frame the other side sent that nobody asked for)."""
        try:
            return bool(self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return False

    def receive(self, max_payload_bytes=None):
        """(header, payload as a bytearray, fds). max_payload_bytes: this frame's bound on
        its payload, else the channel's."""
        limit = self.max_payload_bytes if max_payload_bytes is None else max_payload_bytes
        (header_bytes, payload_bytes), fds = self._read_prefix()
        try:
            if header_bytes > MAX_HEADER_BYTES or payload_bytes > limit:
                raise FrameError(f"frame too large (header {header_bytes} B of at most {MAX_HEADER_BYTES}, "
                                 f"payload {payload_bytes} B of at most {limit})")
            header = parse_header(self._read_bytes(header_bytes))
            payload = self._read_bytes(payload_bytes)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        return header, payload, fds
