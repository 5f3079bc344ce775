# task: relu
# expect: compile_error
# device: both
# why: a Python syntax error (unclosed bracket)
import torch
import triton
import triton.language as tl


def relu(x):
    out = torch.empty_like(x
    return out
