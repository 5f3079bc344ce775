"""Builds a case's inputs with the task's make_inputs(case, dtype, seed).

Tasks in keval's own format (`shared_inputs`, the default) draw on `torch.empty(0).device`
from a Generator there, and make_inputs runs inside `with torch.device(job device)`: on CUDA the
large cases' inputs are drawn on the GPU in milliseconds (on the CPU they took seconds each, most
of a GPU evaluation's time). Peer adapters' make_inputs run as their harnesses run them, with the
CPU as the default device, unless the task says `inputs_on_device` (KernelBench: its inputs are up
to 4 GiB, 20 s a job on one CPU thread); the runner then copies every tensor to the job's device. No
process-wide default device is ever set: it would put a TorchFunctionMode in front of every torch
call, slowing the timed candidate calls (the context above lasts one make_inputs call).
"""

import collections
import contextlib
import difflib
import os

import torch

DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float8_e4m3fn": torch.float8_e4m3fn,
    "float8_e5m2": torch.float8_e5m2,
    "int8": torch.int8,
    "int32": torch.int32,
    "float64": torch.float64,
}


def torch_dtype(name: str) -> torch.dtype:
    if name in DTYPES:
        return DTYPES[name]
    close = difflib.get_close_matches(str(name), list(DTYPES), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise ValueError(f"unknown dtype '{name}' (known: {', '.join(DTYPES)}){hint}")


def torch_device(device: str, gpu) -> torch.device:
    if device == "cuda":
        return torch.device("cuda", int(gpu or 0))
    return torch.device("cpu")


def case_dict(case: dict) -> dict:
    """What make_inputs receives: the case's params plus its name."""
    result = dict(case.get("params") or {})
    result["name"] = case["name"]
    return result


def _copy_to(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    """A copy on device that is a leaf like the original: a plain .to() of a tensor that requires
    grad is the output of a copy (not a leaf), and optimizers refuse such parameters."""
    copy = t.detach().to(device, copy=True)
    return copy.requires_grad_(True) if t.requires_grad else copy


def to_device(value, device: torch.device, fresh: bool = False):
    """Tensors (also inside list/tuple/dict arguments, one level) copied to device: always a
    copy, so a call that mutates its inputs never reaches the memoised originals. fresh: a
    tensor already on device is used as it is (the value is no memo's, or it is only read)."""
    def move(t):
        return t if fresh and t.device == device else _copy_to(t, device)

    if isinstance(value, torch.Tensor):
        return move(value)
    if isinstance(value, (list, tuple)):
        return type(value)(move(v) if isinstance(v, torch.Tensor) else v for v in value)
    if isinstance(value, dict):
        return {k: (move(v) if isinstance(v, torch.Tensor) else v) for k, v in value.items()}
    return value


# make_inputs results, by (task, case, dtype, seed): a job builds the same inputs several times
# (correctness call, determinism re-run, rotation sets, each baseline), and large cases take
# seconds to draw on the CPU. The zygote fills it too (prebuild, before the fork), so the
# candidate, reference and timing jobs of a slot draw each input set once between them.
# Bounded; least recently used sets go first.
_MEMO = collections.OrderedDict()
_MEMO_LIMIT_BYTES = 8 * 1024**3
# The most the memo keeps of sets drawn on a GPU, all of them together, and only of one case (the
# latest drawn); a larger set is drawn again for every build (milliseconds there). Kept per set, a
# KernelBench job's 2 x 6 GiB sets doubled its device memory, and four evaluations at once on one
# H200 ran it out of memory; kept per set below this, a job's three seeds and their rotation sets
# held several times the memory one call needs; kept across cases, the earlier cases' sets sat
# beside the largest case's (w8a16_matmul's candidate job: 426 MiB of GPU for a call of 80 MiB,
# by the sets' sizes up to 224 MiB of it the memo). A job works through its cases in turn, so a
# case's sets are wanted again (the determinism re-run, the rotation sets) while it is the latest.
_DEVICE_MEMO_LIMIT_BYTES = 256 * 1024**2
TASK_KEY = "_keval_task_key"  # set on make_inputs by tag_task: equal in the zygote and its jobs


def tag_task(make_inputs, task_dir: str) -> None:
    """Names make_inputs by its task folder, so the zygote's and a job's own copies of the
    function share memo entries (untagged functions are keyed by identity)."""
    try:
        setattr(make_inputs, TASK_KEY, os.path.realpath(task_dir))
    except (AttributeError, TypeError):
        pass


def _memo_key(make_inputs, case: dict, seed: int, draw_device=None) -> tuple:
    task = getattr(make_inputs, TASK_KEY, None) or id(make_inputs)
    return (task, case["name"], repr(sorted((case.get("params") or {}).items())), case["dtype"], seed,
            str(draw_device))


def _draw(make_inputs, case: dict, seed: int, draw_device=None) -> tuple:
    """One call of make_inputs (with draw_device as the default device when given), its result as
    a tuple of arguments (no memo)."""
    where = torch.device(draw_device) if draw_device is not None else contextlib.nullcontext()
    with where:
        args = make_inputs(case_dict(case), torch_dtype(case["dtype"]), seed)
    if isinstance(args, torch.Tensor):
        return (args,)
    if isinstance(args, list):
        return tuple(args)
    if not isinstance(args, tuple):
        raise TypeError(f"make_inputs returned {type(args).__name__}, expected a tuple of arguments")
    return args


def _case_of(key: tuple) -> tuple:
    """A memo key without its seed: the task, case, params, dtype and draw device."""
    return key[:4] + key[5:]


def _on_gpu(args) -> bool:
    return any(t.device.type != "cpu" for t in tensors_in(args))


def _remember(key: tuple, args: tuple) -> None:
    _MEMO[key] = args
    while len(_MEMO) > 1 and sum(input_bytes(a) for a in _MEMO.values()) > _MEMO_LIMIT_BYTES:
        _MEMO.popitem(last=False)
    if _on_gpu(args):  # the device keeps sets of this case alone
        for other in [k for k, a in _MEMO.items() if _case_of(k) != _case_of(key) and _on_gpu(a)]:
            del _MEMO[other]
    on_device = [k for k, a in _MEMO.items() if k != key and _on_gpu(a)]  # least recent first
    budget = _DEVICE_MEMO_LIMIT_BYTES - (input_bytes(args) if _on_gpu(args) else 0)
    held = sum(input_bytes(_MEMO[k]) for k in on_device)
    while on_device and held > budget:
        held -= input_bytes(_MEMO.pop(on_device.pop(0)))


# glibc serves allocations up to this size from its heap (its largest mmap threshold), where a
# freed block keeps its bytes; larger ones are unmapped when freed.
_HEAP_BLOCK_BYTES = 32 * 1024**2


def forget_drawn_inputs() -> None:
    """In a guest just forked: empties the memo it inherited. A CPU job's zygote draws every
    seed's input set into it before the fork, so the submission would hold the inputs of calls
    still to come; sets that may lie in the heap are zeroed first (this process's copies only),
    the larger ones are unmapped once freed."""
    for args in _MEMO.values():
        for t in tensors_in(args):
            try:
                storage = t.untyped_storage()
                if t.device.type == "cpu" and storage.nbytes() <= _HEAP_BLOCK_BYTES:
                    storage.fill_(0)
            except (RuntimeError, NotImplementedError):  # a sparse or other storage-less layout
                pass
    _MEMO.clear()


def _made_inputs(make_inputs, case: dict, seed: int, draw_device=None) -> tuple:
    """(arguments, whether the memo holds them)."""
    key = _memo_key(make_inputs, case, seed, draw_device)
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return _MEMO[key], True
    args = _draw(make_inputs, case, seed, draw_device)
    if _on_gpu(args) and input_bytes(args) > _DEVICE_MEMO_LIMIT_BYTES:
        return args, False
    _remember(key, args)
    return args, True


def drawn_bytes(make_inputs, case: dict, seed: int, device: torch.device, on_device: bool = False) -> int:
    """The bytes of one input set's tensors as build_inputs would return them, with no copy
    made to the device (the memo's set, or one drawn and kept there as build_inputs would)."""
    drawn, _ = _made_inputs(make_inputs, case, seed, torch.device(device) if on_device else None)
    return input_bytes(drawn)


def draws_on_device(request: dict) -> bool:
    """Whether the job calls make_inputs with its own device as the default device."""
    return bool(request.get("shared_inputs") or request.get("inputs_on_device"))


def build_inputs(make_inputs, case: dict, seed: int, device: torch.device, on_device: bool = False,
                 read_only: bool = False) -> tuple:
    """Calls make_inputs (memoised per job) and returns a fresh copy of the arguments on device.
    on_device: keval's own format, drawn with device as the default device (else the CPU's).
    read_only: for a caller that only reads them (it copies them where a call can change them):
    the memo's own tensors where they already lie on device, no copy."""
    drawn, kept = _made_inputs(make_inputs, case, seed, torch.device(device) if on_device else None)
    return tuple(to_device(arg, device, fresh=read_only or not kept) for arg in drawn)


def prebuild(make_inputs, planned: list, threads: int = 1) -> int:
    """Draws the CPU input sets (keval's own format, drawn on the CPU) of planned (case, seed)
    pairs not yet in the memo, on up to `threads` threads (torch's CPU ops release the GIL; each
    make_inputs draws from its own Generator), and remembers them. Returns how many were drawn.
    The first error propagates."""
    from concurrent.futures import ThreadPoolExecutor

    cpu = torch.device("cpu")
    missing = [(case, seed) for case, seed in planned if _memo_key(make_inputs, case, seed, cpu) not in _MEMO]
    if not missing:
        return 0
    # Always on worker threads, never on the calling (zygote's main) thread: GNU OpenMP is not
    # fork-safe, and once the main thread has run a parallel region (any large CPU op), every
    # child forked later hangs in its first one. Worker threads' teams do not reach the child.
    with ThreadPoolExecutor(max_workers=max(1, min(threads, len(missing)))) as pool:
        drawn = list(pool.map(lambda item: _draw(make_inputs, *item, cpu), missing))
    for (case, seed), args in zip(missing, drawn):
        _remember(_memo_key(make_inputs, case, seed, cpu), args)
    return len(missing)


def input_bytes(args) -> int:
    """The bytes of the tensors among a call's arguments (tensors_in)."""
    return sum(t.numel() * t.element_size() for t in tensors_in(args))


def tensors_in(args) -> list:
    """Tensors among the arguments, also inside list/tuple/dict arguments (one level)."""
    found = []
    for arg in args:
        if isinstance(arg, torch.Tensor):
            found.append(arg)
        elif isinstance(arg, (list, tuple)):
            found.extend(a for a in arg if isinstance(a, torch.Tensor))
        elif isinstance(arg, dict):
            found.extend(a for a in arg.values() if isinstance(a, torch.Tensor))
    return found


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
