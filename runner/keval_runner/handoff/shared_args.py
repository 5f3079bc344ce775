"""A call's arguments handed from the warden to the guest without copies the guest could fake.

Every input tensor lives in memory the warden allocated (checks.Guarded with a shared
allocator): CPU memfds passed over the channel, CUDA allocations exported through the driver's
IPC. The guest maps the same bytes, so the warden's checks after the call (inputs unchanged,
guard bands intact) read what the candidate's kernels actually left there, from a process the
candidate cannot reach. Plain values (ints, floats, dtypes) go pickled: only the guest unpickles.

The guest's outputs come back the other way as plain bytes with a JSON description; the warden
validates it and never unpickles anything the guest sends.
"""

import pickle

import torch

from ..checks.checks import map_tensors
from ..device.device_sharing import DeviceBuffer, HostBuffer

MAX_OUTPUTS = 64
OUTPUT_ALIGN = 16  # each output starts at a multiple of this in the payload: a typed view needs it


def _aligned(offset: int) -> int:
    return -(-offset // OUTPUT_ALIGN) * OUTPUT_ALIGN


class _Slot:
    """Where a tensor sat in the arguments (pickled in its place)."""

    def __init__(self, index: int):
        self.index = index


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def dtype_from_name(name) -> torch.dtype:
    value = getattr(torch, name, None) if isinstance(name, str) else None
    if not isinstance(value, torch.dtype):
        raise ValueError(f"unknown dtype {name!r}")
    return value


# -- warden side ----------------------------------------------------------------------------

def describe_args(args, buffers: list) -> tuple:
    """(request fields, fds) that let the guest rebuild args over the same memory. buffers: the
    HostBuffers and DeviceBuffers the tensors were allocated in (device_sharing.shared_allocator)."""
    by_pointer = {(b.tensor.device.type, b.tensor.data_ptr()): b for b in buffers}
    storages, tensors, fds = {}, [], []

    def storage_index(t: torch.Tensor) -> int:
        storage = t.untyped_storage()
        key = (t.device.type, storage.data_ptr())
        if key not in storages:
            found = by_pointer.get(key)
            if found is None:
                raise ValueError("an input tensor does not live in shared memory")
            fds.append(found.fd)
            storages[key] = {"fd": len(fds) - 1, "nbytes": storage.nbytes(), "index": len(storages)}
            if isinstance(found, DeviceBuffer):
                storages[key]["device_size"] = found.size
        return storages[key]["index"]

    def slot(t: torch.Tensor):
        spec = {"storage": storage_index(t), "dtype": dtype_name(t.dtype), "shape": list(t.shape),
                "stride": list(t.stride()), "offset": t.storage_offset(), "requires_grad": bool(t.requires_grad)}
        tensors.append(spec)
        index = len(tensors) - 1
        if t.grad is not None:  # an optimizer's parameter: its gradient goes along
            spec["grad"] = slot(t.grad).index
        return _Slot(index)

    template = map_tensors(args, slot)
    ordered = sorted(storages.values(), key=lambda s: s["index"])
    return {"template": pickle.dumps(template).hex(), "tensors": tensors,
            "storages": [{k: v for k, v in s.items() if k != "index"} for s in ordered]}, fds


def output_layout(described) -> list:
    """(shape, dtype, nbytes) of each output the guest described (ValueError when malformed)."""
    if not isinstance(described, list) or len(described) > MAX_OUTPUTS:
        raise ValueError(f"outputs must be a list of at most {MAX_OUTPUTS} descriptions")
    layout = []
    for item in described:
        if not isinstance(item, dict) or not isinstance(item.get("shape"), list) or not all(
                isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in item["shape"]):
            raise ValueError(f"bad output description {str(item)[:200]}")
        dtype = dtype_from_name(item.get("dtype"))
        count = 1
        for size in item["shape"]:
            count *= size
        layout.append((item["shape"], dtype, count * torch.empty(0, dtype=dtype).element_size()))
    return layout


def outputs_from_payload(described, payload: bytearray) -> list:
    """The guest's outputs as tensors over payload, after checking its description."""
    outputs, at = [], 0
    raw = torch.frombuffer(payload, dtype=torch.uint8) if len(payload) else torch.empty(0, dtype=torch.uint8)
    for shape, dtype, nbytes in output_layout(described):
        at = _aligned(at)
        if at + nbytes > len(payload):
            raise ValueError("outputs describe more bytes than were sent")
        outputs.append(raw[at: at + nbytes].view(dtype).reshape(shape) if nbytes else torch.empty(shape, dtype=dtype))
        at += nbytes
    if at != len(payload):
        raise ValueError(f"{len(payload) - at} bytes sent beyond the described outputs")
    return outputs


# -- guest side -----------------------------------------------------------------------------

class ArgsOpener:
    """Rebuilds the warden's arguments in the guest (CUDA allocations opened once each)."""

    def __init__(self, device: torch.device):
        self.device = device

    def open(self, fields: dict, fds: list, imported: list):
        """The arguments; each device mapping made is added to `imported` (close them once the
        arguments are no longer used)."""
        raws = []
        for storage in fields["storages"]:
            if "device_size" in storage:
                mapped = DeviceBuffer(storage["nbytes"], self.device, fds[storage["fd"]], storage["device_size"])
                imported.append(mapped)
                raws.append(mapped.tensor)
            else:
                raws.append(HostBuffer(storage["nbytes"], fds[storage["fd"]]).tensor)
        tensors = []
        for spec in fields["tensors"]:
            raw = raws[spec["storage"]]
            dtype = dtype_from_name(spec["dtype"])
            size = torch.empty(0, dtype=dtype).element_size()
            typed = raw[: raw.numel() - raw.numel() % size].view(dtype)
            t = typed.as_strided(spec["shape"], spec["stride"], spec["offset"])
            if spec.get("requires_grad"):
                t.requires_grad_(True)
            tensors.append(t)
        for spec, t in zip(fields["tensors"], tensors):
            if spec.get("grad") is not None:
                t.grad = tensors[spec["grad"]]
        template = pickle.loads(bytes.fromhex(fields["template"]))

        def fill(value):
            return tensors[value.index] if isinstance(value, _Slot) else value

        return _refill(template, fill)


def _refill(template, fill) -> tuple:
    def one(value):
        if isinstance(value, _Slot):
            return fill(value)
        if isinstance(value, (list, tuple)):
            return type(value)(fill(v) if isinstance(v, _Slot) else v for v in value)
        if isinstance(value, dict):
            return {k: (fill(v) if isinstance(v, _Slot) else v) for k, v in value.items()}
        return value
    return tuple(one(arg) for arg in template)


def output_payload(outputs: list) -> tuple:
    """(descriptions, chunks) of plain CPU tensors for Channel.send."""
    described, chunks, at = [], [], 0
    for t in outputs:
        t = t.contiguous()
        described.append({"dtype": dtype_name(t.dtype), "shape": list(t.shape)})
        if t.numel():
            if _aligned(at) > at:
                chunks.append(bytes(_aligned(at) - at))
                at = _aligned(at)
            chunks.append(t.view(-1).view(torch.uint8).numpy())
            at += t.numel() * t.element_size()
    return described, chunks

