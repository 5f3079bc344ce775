"""The warden's handle on its guest: start it, ask it, and mirror its end.

The guest is forked before the warden touches CUDA (a forked child cannot use its parent's
context) and stays in the job's process group, so the controller's deadline kills both. When
the guest dies, the warden ends the same way (the same signal, or the same exit code) without
`done`: the controller sees a crashing submission exactly as when it ran in one process.
"""

import os
import signal

import time

from . import sandbox
from .guest_channel import Channel, ChannelError, FrameError

EXIT_DEVICE_ERROR = 4


class GuestGone(Exception):
    """The guest closed the channel: it exited, crashed or was killed."""


class GuestMisbehaved(Exception):
    """The guest sent something the protocol does not allow (a forged or broken reply)."""


class GuestProcess:
    def __init__(self, pid: int, channel: Channel):
        self.pid = pid
        self.channel = channel
        self.device_lost = None  # (kind, message) when the guest reported its context lost

    @classmethod
    def start(cls, request: dict, enter_sandbox, close_fds=()):
        """Forks the guest; in the child, close_fds are closed (the message pipe) and
        enter_sandbox() returns the `sandbox` facts."""
        from .guest import run_guest

        warden_end, guest_end = Channel.pair()
        warden = os.getpid()
        pid = os.fork()
        if pid == 0:
            # the guest dies with its warden (a uid switch clears this: sandbox.apply sets it again)
            sandbox.set_parent_death_signal()
            if os.getppid() != warden:  # it died before the signal was set
                os.kill(os.getpid(), signal.SIGKILL)
            warden_end.close()
            for fd in close_fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            run_guest(request, guest_end, enter_sandbox)
        guest_end.close()
        return cls(pid, warden_end)

    def _receive(self, keep_fds: bool = False):
        try:
            header, payload, fds = self.channel.receive()
        except FrameError as exc:
            raise GuestMisbehaved(str(exc)) from exc
        except ChannelError as exc:
            raise GuestGone(str(exc)) from exc
        if not keep_fds:  # only a call's sealed outputs come as descriptors
            for fd in fds:
                os.close(fd)
            fds = []
        op = header.get("op")
        if op in ("device_lost", "sandbox_failed"):
            for fd in fds:
                os.close(fd)
        if op == "device_lost":
            self.device_lost = (str(header.get("kind", "DeviceLost"))[:100], str(header.get("message", ""))[:2000])
            raise GuestGone("the guest lost its device")
        if op == "sandbox_failed":
            raise GuestMisbehaved(f"sandbox: {str(header.get('message', ''))[:2000]}")
        return header, payload, fds

    def ready(self) -> dict:
        """The guest's sandbox facts, once it is set up."""
        header, _, _ = self._receive()
        if header.get("op") != "ready" or not isinstance(header.get("sandbox"), (dict, type(None))):
            raise GuestMisbehaved("the guest's first message is not `ready`")
        return header.get("sandbox")

    def ask(self, header: dict, fds=(), keep_fds: bool = False):
        """(reply, payload, descriptors) of one request; the descriptors the guest sent are
        closed unless keep_fds (then they are the caller's to close)."""
        try:
            self.channel.send(header, fds=fds)
        except ChannelError as exc:
            raise GuestGone(str(exc)) from exc
        reply, payload, kept = self._receive(keep_fds)
        try:
            if not isinstance(reply.get("ok"), bool):
                raise GuestMisbehaved(f"reply to {header.get('op')!r} without a boolean 'ok'")
            tampering = reply.get("tampering")
            if not isinstance(tampering, list) or not all(isinstance(n, str) for n in tampering):
                raise GuestMisbehaved(f"reply to {header.get('op')!r} without a list of tampered names")
        except GuestMisbehaved:
            for fd in kept:
                os.close(fd)
            raise
        return reply, payload, kept

    def end(self):
        """Asks the guest for its peak GPU bytes, then to exit, and reaps it. Returns that
        figure: an integer >= 0, or None when it gave none."""
        try:
            reply, _, _ = self.ask({"op": "peak_memory"})
            peak = reply.get("gpu_bytes")
            if isinstance(peak, bool) or not isinstance(peak, int) or peak < 0:
                peak = None
        except (GuestGone, GuestMisbehaved):
            peak = None
        try:
            self.channel.send({"op": "end"})
        except ChannelError:
            pass
        self.channel.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        return peak

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError, PermissionError):
            pass

    def mirror_exit(self, grace_s: float = 2.0):
        """Ends this process as the guest ended (never returns). A guest that closed the
        channel but lives on is killed after grace_s."""
        status = None
        deadline = time.monotonic() + grace_s
        while status is None:
            try:
                pid, found = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                pid, found = self.pid, 0
            if pid:
                status = found
            elif time.monotonic() > deadline:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                deadline = float("inf")
            else:
                time.sleep(0.005)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 3)
