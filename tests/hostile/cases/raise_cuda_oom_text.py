# task: relu
# expect: runtime_error
# device: both
# why: raises torch's own out-of-memory error with the allocator's text inside the call (and prints it on stderr), hoping the run retries it alone and halves its slots (on CUDA the run's log must not report a job out of device memory)
import sys

import torch


def relu(x):
    text = "CUDA out of memory. Tried to allocate 6.00 GiB. GPU 0 has a total capacity of 139.81 GiB"
    print(f"torch.OutOfMemoryError: {text}", file=sys.stderr)
    raise torch.OutOfMemoryError(text)
