"""Where a candidate call's outputs are saved and how the reference job reads them back.

Saved without torch.save's CRC32 (on this machine 0.5 s per 256 MiB, four times the rest of
the save; the file never leaves the run's folder and is read once, by our own reference job)
and loaded memory-mapped (the comparison reads each page once, from the page cache)."""

import errno
import os

import torch

from ..protocol.errors import OutputWriteFailed

# A write refused for these is the machine's fault (a full or read-only disk, a folder keval
# cannot write), never the submission's: the controller leaves it unjudged. EFBIG is not among
# them: the sandbox's file-size limit is what an oversized output from the submission meets.
MACHINE_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM)


def output_path(outputs_dir: str, case: str, dtype: str, seed: int) -> str:
    return os.path.join(outputs_dir, f"{case}__{dtype}__{seed}.pt")


def rerun_path(outputs_dir: str, case: str, dtype: str, seed: int) -> str:
    """Where the determinism re-run's outputs go when they differ from the first call's (the
    reference job then looks whether they differ only where the reference is undefined)."""
    return output_path(outputs_dir, case, dtype, seed)[:-3] + "__rerun.pt"


def plain_copy(t: torch.Tensor, device=None) -> torch.Tensor:
    """A plain torch.Tensor with t's values, on `device` (default: t's own). A subclass's
    __torch_function__ is not consulted, so it cannot substitute other values for the copy."""
    with torch._C.DisableTorchFunctionSubclass():
        copy = t.detach().to(device if device is not None else t.device, copy=True)
        if type(copy) is not torch.Tensor:
            copy = copy.as_subclass(torch.Tensor)
    return copy


def plain_cpu_copy(t: torch.Tensor) -> torch.Tensor:
    return plain_copy(t, "cpu")


def save_outputs(path: str, outputs: list, owned: bool = False) -> list:
    """Saves CPU copies (a copy never shares storage with an input or a larger buffer) and
    returns them; `owned`: the outputs are already plain CPU tensors each owning exactly its
    memory (a guest's, from the warden), saved as they are."""
    cpu = list(outputs) if owned else [plain_cpu_copy(t) for t in outputs]
    tmp = path + ".tmp"
    set_crc32 = getattr(torch.serialization, "set_crc32_options", None)  # torch >= 2.5
    if set_crc32 is not None:
        set_crc32(False)
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save(cpu, tmp)
        os.replace(tmp, path)  # a crash mid-save never leaves a half-written file under the real name
    except (OSError, RuntimeError) as exc:
        cause = _machine_write_error(exc, os.path.dirname(path) or ".")
        if cause is None:
            raise
        _remove_quietly(tmp)  # frees what the partial file took
        # the file name only: a reason may be shared, the machine's paths may not
        raise OutputWriteFailed(f"could not write outputs file {os.path.basename(path)}: {os.strerror(cause)}") from exc
    return cpu


def _machine_write_error(exc: BaseException, folder: str):
    """The errno of a write the machine refused (MACHINE_WRITE_ERRORS), or None. torch.save
    raises RuntimeError with no errno: an open names its strerror, but a write that comes up
    short says only "unexpected pos", so the folder's file system tells: full or read-only."""
    for item in (exc, exc.__cause__, exc.__context__):
        if isinstance(item, OSError) and item.errno in MACHINE_WRITE_ERRORS:
            return item.errno
    if not isinstance(exc, RuntimeError):
        return None
    for code in MACHINE_WRITE_ERRORS:
        if os.strerror(code) in str(exc):
            return code
    try:
        disk = os.statvfs(folder)  # before the partial file is removed: it filled the disk
    except OSError:
        return None
    if disk.f_flag & os.ST_RDONLY:
        return errno.EROFS
    if disk.f_bavail == 0:
        return errno.ENOSPC
    return None


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def load_outputs(path: str):
    """The saved list of tensors, or None when the file does not exist."""
    if not os.path.exists(path):
        return None
    loaded = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    if isinstance(loaded, torch.Tensor):
        loaded = [loaded]
    if not isinstance(loaded, (list, tuple)) or not all(isinstance(t, torch.Tensor) for t in loaded):
        raise TypeError(f"{path} does not hold a list of tensors")
    return list(loaded)
