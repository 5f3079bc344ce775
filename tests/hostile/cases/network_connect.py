# task: vector_add
# expect: pass
# device: both
# why: tries to reach the network (a listener the test opens on 127.0.0.1, on the first free port of 39517-39532, and 8.8.8.8:53); raises if any connection succeeds
import socket

import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def _add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


_probed = False


def _reachable(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1.0)
    try:
        s.connect((host, port))
        s.sendall(b"keval hostile: connected\n")
        return True
    except OSError:
        return False
    finally:
        s.close()


def vector_add(x, y):
    global _probed
    if not _probed:
        _probed = True
        # every port the test's listener may have taken: two runs side by side take two
        targets = [("127.0.0.1", port) for port in range(39517, 39533)] + [("8.8.8.8", 53)]
        for host, port in targets:
            if _reachable(host, port):
                raise RuntimeError(f"keval hostile: reached {host}:{port} from inside the job")
    return _add(x, y)
