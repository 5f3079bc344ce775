"""The seed: imports torch and Triton once and forks each zygote of a run from itself.

A run's slots would otherwise each pay the import (seconds of CPU apiece). The controller
speaks to the seed over a SOCK_SEQPACKET socket on its fd 0: each request is one JSON object
with three descriptors attached (the zygote's stdin, its protocol stream and its log); each
reply is one JSON object. The seed never touches CUDA and runs no job; it lives until the
controller closes the socket, and its zygotes take it for their controller (an orphan check
in a job ends the job when the seed, and so the controller, is gone).
"""

import json
import os
import signal
import socket
import sys

from . import zygote

FDS_PER_SPAWN = 3  # stdin, protocol, log


def _reply(channel: socket.socket, **message) -> None:
    channel.send(json.dumps(message).encode())


def _become_zygote(channel: socket.socket, fds: list, toolkit, seed_pid: int) -> None:
    """In the forked child: takes the descriptors as its own streams and serves jobs."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the zygote waits for its own children
        os.setpgid(0, 0)  # its own group, as an exec'd zygote has: a kill of the group is ours
        channel.close()
        stdin_fd, protocol_in, log_fd = fds
        os.dup2(stdin_fd, 0)
        os.dup2(log_fd, 1)  # stray prints land in the log, never in the protocol
        os.dup2(log_fd, 2)
        protocol_fd = os.dup(protocol_in)  # not inheritable: no exec'd guest may hold it
        for fd in fds:
            os.close(fd)
        code = zygote.serve(*toolkit, protocol_fd=protocol_fd, parent_pid=seed_pid)
    except BaseException as exc:  # noqa: BLE001  (a child must never return into the seed's loop)
        print(f"keval_runner seed: zygote failed: {exc!r}", file=sys.stderr)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve_spawns(channel: socket.socket, toolkit) -> int:
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(channel, 65536, FDS_PER_SPAWN)
        except OSError:
            return 0
        if not data:
            return 0  # the controller closed its end
        try:
            request = json.loads(data)
        except ValueError:
            request = None
        if not isinstance(request, dict) or request.get("op") != "spawn" or len(fds) != FDS_PER_SPAWN:
            for fd in fds:
                os.close(fd)
            _reply(channel, type="error", message=f"expected a spawn request with {FDS_PER_SPAWN} "
                   f"descriptors, got {data[:200]!r} with {len(fds)}")
            continue
        try:
            seed_pid = os.getpid()
            pid = os.fork()
            if pid == 0:
                _become_zygote(channel, fds, toolkit, seed_pid)
            reply = {"type": "spawned", "pid": pid}
        except OSError as exc:
            reply = {"type": "error", "message": f"fork failed: {exc}"}
        for fd in fds:  # else the zygote's pipes never reach EOF when it ends
            os.close(fd)
        _reply(channel, **reply)


def main() -> int:
    channel = socket.socket(fileno=os.dup(0))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the socket is reached only through `channel`
    os.close(devnull)
    os.dup2(2, 1)  # stray prints land on stderr
    toolkit = zygote.import_toolkit()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # zygotes are reaped as they end: no zombies
    _reply(channel, type="ready", pid=os.getpid())
    return serve_spawns(channel, toolkit)
