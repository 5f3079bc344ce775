import torch
import torch.nn.functional as F


def reference(ids, num_classes, dtype):
    return F.one_hot(ids, num_classes).to(dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    n, C = case["n"], case["C"]
    ids = torch.randint(0, C, (n,), generator=g, device=dev)
    if case.get("outliers"):
        # the extreme classes (0 and C - 1), where off-by-one masks go wrong
        ids[::3] = 0
        ids[1::3] = C - 1
    return ids.to(dev), C, dtype
