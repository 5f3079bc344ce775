# task: relu
# expect: pass|tampering
# device: cuda
# needs: timing
# speedup_at_most: 2
# why: rewires keval's gated call in its own process so that `done` is written right after the warden's gate opens, before its relu runs: the warden's end event comes at once, its work after; the warden copies the output slots right after its end event, before any of the guest's kernels runs again, so the outputs are unfinished (a mismatch) or the work was inside the sample
import gc

import torch

from keval_runner.device import stream_flags


def _done_before_the_work(calls):
    def go_gated(key, entry, n):
        stream = torch.cuda.current_stream()
        stream_flags.wait_at_least(stream, calls.gate, n)
        stream_flags.write(stream, calls.gate + 4, n)
        results, copied = [], True
        with torch.no_grad():
            for index, args in enumerate(calls.armed[key]):  # each of the sample's calls
                results.append(entry(*args))
                copied = calls._into_slots(key, index, results[-1]) and copied
        calls.last_outputs = results
        return {"ok": True, "outputs": "slots" if copied else None}
    return go_gated


for _obj in gc.get_objects():
    if type(_obj).__name__ == "TimedCalls":
        _obj._go_gated = _done_before_the_work(_obj)


def relu(x):
    return torch.relu(x)
