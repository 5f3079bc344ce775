# task: vector_add
# expect: no_kernel
# device: both
# why: computes x + y with PyTorch and defines no Triton kernel at all
import torch


def vector_add(x, y):
    return torch.add(x, y)
