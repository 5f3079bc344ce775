# task: relu
# expect: tampering
# device: both
# why: inside the call writes a frame into its channel to the warden whose JSON header nests 20000 lists deep, so parsing it raises RecursionError in the warden
import os
import stat
import struct

import torch


def _write_to_channel(data: bytes) -> None:
    for fd in range(3, 256):
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            pass


def relu(x):
    header = b"[" * 20000 + b"]" * 20000
    _write_to_channel(struct.pack("!QQ", len(header), 0) + header)
    return torch.relu(x)
