"""Checks on a GPU machine that a root process can share device memory with a sandboxed child
of another uid, as the warden shares a call's inputs with the guest (docs/trust.md): the child
maps the parent's buffer from a file descriptor passed over a socket, reads it, writes into it,
and the parent sees the write. Run as root from the repo root:

    python3 scripts/cuda_ipc_check.py [UID]
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runner"))

import torch  # noqa: E402

from keval_runner.device.device_sharing import DeviceBuffer  # noqa: E402
from keval_runner.guest.guest_channel import Channel  # noqa: E402
from keval_runner.sandbox.private_tmp import make_private  # noqa: E402
from keval_runner.sandbox.sandbox import CLONE_NEWNET, switch_user, unshare  # noqa: E402

NBYTES = 3 << 20  # not a multiple of the allocation granularity


def child(channel: Channel, uid: int) -> None:
    report = {}
    try:
        report["network_namespace"] = unshare(CLONE_NEWNET) == 0
        report["private_tmp"] = make_private([os.getcwd(), sys.prefix], [])
        switch_user(uid, uid)
        report["uid"] = os.getuid()
        device = torch.device("cuda", 0)
        torch.zeros(1, device=device)
        header, _, fds = channel.receive()
        mapped = DeviceBuffer(header["nbytes"], device, fds[0], header["size"])
        os.close(fds[0])
        report["sum_seen"] = int(mapped.tensor.to(torch.int64).sum())
        mapped.tensor.fill_(7)
        torch.cuda.synchronize()
        mapped.close()
        report["ok"] = True
    except BaseException as exc:  # noqa: BLE001 (the report says what failed)
        report["error"] = repr(exc)
    channel.send(report)
    os._exit(0)


def main() -> int:
    uid = int(sys.argv[1]) if len(sys.argv) > 1 else 61999
    parent_end, child_end = Channel.pair()
    pid = os.fork()  # before CUDA: a forked child cannot use its parent's context
    if pid == 0:
        parent_end.close()
        child(child_end, uid)
    child_end.close()
    device = torch.device("cuda", 0)
    torch.zeros(1, device=device)
    buffer = DeviceBuffer(NBYTES, device)
    buffer.tensor.fill_(1)
    torch.cuda.synchronize()
    parent_end.send({"nbytes": buffer.nbytes, "size": buffer.size}, fds=[buffer.fd])
    report, _, _ = parent_end.receive()
    os.waitpid(pid, 0)
    report["parent_sees_write"] = bool((buffer.tensor == 7).all())
    report["granularity_size"] = buffer.size
    buffer.close()
    print(json.dumps(report))
    return 0 if report.get("ok") and report["parent_sees_write"] and report.get("sum_seen") == NBYTES else 1


if __name__ == "__main__":
    sys.exit(main())
