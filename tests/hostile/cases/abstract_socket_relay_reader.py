# task: relu
# after: abstract_socket_relay
# expect: pass
# device: both
# why: judged after abstract_socket_relay in its slot: returns zeros if that case's abstract socket answers, else computes honestly; passes only when the socket is out of reach (a network namespace per job, its server killed with its job)
import socket

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


ADDRESS = "\0keval_hostile_relay"


def _relayed() -> bool:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(5)
    try:
        client.connect(ADDRESS)
        return client.recv(16) == b"zeros"
    except OSError:
        return False
    finally:
        client.close()


def relu(x):
    if _relayed():
        return torch.zeros_like(x)  # the relayed "answers": wrong wherever x > 0
    return _relu(x)
