"""The warden's handle on its guest: start it, ask it, and mirror its end.

The guest is forked before the warden touches CUDA (a forked child cannot use its parent's
context) and stays in the job's process group, so the controller's deadline kills both. When
the guest dies, the warden ends the same way (the same signal, or the same exit code) without
`done`: the controller sees a crashing submission exactly as when it ran in one process.

The channel is a state machine (guest_turns.py): before `ready` the guest is keval's own code
(the submission is not loaded yet), so its `sandbox_failed` or `device_failed` is a harness
fault; after `ready` the guest speaks only in replies, one per request, and anything else is
the guest misbehaving (`tampering`). A fault of the device or of the sandbox then counts only
when the warden sees it itself.
"""

import os
import select
import signal

import time

from ..sandbox import sandbox
from .guest_channel import Channel, ChannelError, FrameError

EXIT_DEVICE_ERROR = 4


# Both derive from BaseException, as SystemExit does: a broken or forged reply must end the
# job's talk with its guest wherever it surfaces, never be taken for a baseline's or a task's
# own exception by an `except Exception` on the way (run_with_guest in child.py decides).
class GuestGone(BaseException):
    """The guest closed the channel: it exited, crashed or was killed."""


class GuestMisbehaved(BaseException):
    """The guest sent something the protocol does not allow (a forged or broken reply)."""


class HarnessFailedBeforeReady(Exception):
    """The guest reported a fault of keval's own set-up before `ready`, while only keval's
    code ran in it: `sandbox_failed` (kind "sandbox") or `device_failed` (kind "device")."""

    def __init__(self, kind: str, message: str, error_kind: str = "", out_of_memory: bool = False):
        super().__init__(message)
        self.kind = kind
        self.error_kind = error_kind
        self.out_of_memory = out_of_memory


def _text(header: dict, name: str, limit: int) -> str:
    value = header.get(name)
    return value[:limit] if isinstance(value, str) else ""


def check_reply(header: dict, request_op) -> None:
    """GuestMisbehaved unless header is a reply: no `op` (after `ready` the guest only answers),
    a boolean `ok`, a list of names in `tampering`, an object as `error` if any."""
    if "op" in header:
        raise GuestMisbehaved(f"a frame out of turn ({str(header['op'])[:40]!r}) where a reply to "
                              f"{request_op!r} was due")
    if not isinstance(header.get("ok"), bool):
        raise GuestMisbehaved(f"reply to {request_op!r} without a boolean 'ok'")
    tampering = header.get("tampering")
    if not isinstance(tampering, list) or not all(isinstance(n, str) for n in tampering):
        raise GuestMisbehaved(f"reply to {request_op!r} without a list of tampered names")
    if "error" in header and not isinstance(header["error"], dict):
        raise GuestMisbehaved(f"reply to {request_op!r} with an error that is not an object")


class GuestProcess:
    def __init__(self, pid: int, channel: Channel):
        self.pid = pid
        self.channel = channel
        self.is_ready = False  # set by ready(): from then on the guest may only reply

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

    def _receive(self, keep_fds: bool = False, max_payload_bytes=None):
        try:
            header, payload, fds = self.channel.receive(max_payload_bytes)
        except FrameError as exc:
            raise GuestMisbehaved(str(exc)) from exc
        except ChannelError as exc:
            raise GuestGone(str(exc)) from exc
        if not keep_fds:  # only a call's sealed outputs come as descriptors
            for fd in fds:
                os.close(fd)
            fds = []
        return header, payload, fds

    def ready(self) -> dict:
        """The guest's sandbox facts, once it is set up. Before `ready` only keval's code runs
        in the guest: a `sandbox_failed` or `device_failed` it sends is a fault of the
        harness (HarnessFailedBeforeReady), not of the submission."""
        if self.is_ready:
            raise GuestMisbehaved("`ready` asked for twice")
        header, _, _ = self._receive()
        op = header.get("op")
        if op == "sandbox_failed":
            raise HarnessFailedBeforeReady("sandbox", _text(header, "message", 2000))
        if op == "device_failed":
            raise HarnessFailedBeforeReady("device", _text(header, "message", 2000),
                                           _text(header, "error_kind", 100) or "DeviceFailed",
                                           header.get("out_of_memory") is True)
        if op != "ready" or not isinstance(header.get("sandbox"), (dict, type(None))):
            raise GuestMisbehaved("the guest's first message is not `ready`")
        self.is_ready = True
        return header.get("sandbox")

    def ask(self, header: dict, fds=(), keep_fds: bool = False, max_payload_bytes=None):
        """(reply, payload, descriptors) of one request; the descriptors the guest sent are
        closed unless keep_fds (then they are the caller's to close). max_payload_bytes: the
        most payload the reply may carry (the channel's default when None)."""
        self.send_request(header, fds)
        return self.reply_to(header.get("op"), keep_fds, max_payload_bytes)

    def send_request(self, header: dict, fds=()) -> None:
        """The first half of `ask`: the request sent."""
        if not self.is_ready:
            raise GuestMisbehaved(f"{header.get('op')!r} asked before the guest was ready")
        try:
            self.channel.send(header, fds=fds)
        except ChannelError as exc:
            raise GuestGone(str(exc)) from exc

    def replied_within(self, seconds: float) -> bool:
        """Whether a reply (or the channel's end) can be read within `seconds`."""
        return bool(select.select([self.channel.fileno()], [], [], seconds)[0])

    def reply_to(self, op, keep_fds: bool = False, max_payload_bytes=None):
        """The second half of `ask`: the reply to the request `op` sent last."""
        reply, payload, kept = self._receive(keep_fds, max_payload_bytes)
        try:
            check_reply(reply, op)
            if self.channel.pending():  # a second frame for one request
                raise GuestMisbehaved(f"more than one frame in reply to {op!r}")
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
            die_of(os.WTERMSIG(status))
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 3)


def die_of(sig: int):
    """Ends this process by signal sig (never returns). SIGKILL and SIGSTOP cannot be handled,
    so their disposition is left alone (signal.signal refuses them); any other gets its default
    action back and is unblocked first. Where the signal still does not end the process, the
    shell's code for a death by it."""
    if sig not in (signal.SIGKILL, signal.SIGSTOP):
        try:
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        except (OSError, ValueError):
            pass
    try:
        os.kill(os.getpid(), sig)
        for _ in range(100):  # delivered on the way out of kill(); never longer than this
            time.sleep(0.01)
    except (OSError, ValueError):
        pass
    os._exit(128 + sig)
