"""Checks on a GPU machine that a root process can share device memory with a sandboxed child
of another uid (the warden/guest split, docs/trust.md): the child maps the parent's buffer,
reads it, writes into it, and the parent sees the write. Run as root from the repo root:

    PYTHONPATH=runner python3 scripts/cuda_ipc_check.py [UID]
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runner"))

import torch  # noqa: E402

from keval_runner.device_sharing import CudaImports, export_cuda  # noqa: E402
from keval_runner.private_tmp import make_private  # noqa: E402
from keval_runner.sandbox import CLONE_NEWNET, switch_user, unshare  # noqa: E402


def child(read_fd: int, write_fd: int, uid: int) -> None:
    report = {}
    try:
        warnings = []
        report["network_namespace"] = unshare(CLONE_NEWNET) == 0
        report["private_tmp"] = make_private([os.getcwd(), sys.prefix], warnings)
        switch_user(uid, uid)
        report["uid"] = os.getuid()
        device = torch.device("cuda", 0)
        torch.zeros(1, device=device)
        exported = json.loads(os.read(read_fd, 1 << 16))
        buffer = CudaImports(device).buffer(exported)
        report["sum_seen"] = int(buffer.to(torch.int64).sum())
        buffer.fill_(7)
        torch.cuda.synchronize()
        report["ok"] = True
    except BaseException as exc:  # noqa: BLE001 (the report says what failed)
        report["error"] = repr(exc)
    os.write(write_fd, json.dumps(report).encode())
    os._exit(0)


def main() -> int:
    uid = int(sys.argv[1]) if len(sys.argv) > 1 else 61999
    to_child, from_parent = os.pipe()
    from_child, to_parent = os.pipe()
    pid = os.fork()  # before CUDA: a forked child cannot use its parent's context
    if pid == 0:
        child(to_child, to_parent, uid)
    buffer = torch.ones(1 << 20, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    os.write(from_parent, json.dumps(export_cuda(buffer)).encode())
    report = json.loads(os.read(from_child, 1 << 16) or b"{}")
    os.waitpid(pid, 0)
    report["parent_sees_write"] = bool((buffer == 7).all())
    report["expected_sum"] = buffer.numel()
    print(json.dumps(report))
    return 0 if report.get("ok") and report["parent_sees_write"] and report.get("sum_seen") == (1 << 20) else 1


if __name__ == "__main__":
    sys.exit(main())
