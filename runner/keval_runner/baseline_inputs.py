"""A baseline's calls on one input set, for a timed case whose sets are large.

The candidate's input rotation (rotation.py) keeps the values behind its buffers changing, so
an output cache keyed on addresses gives itself away; for that it holds every seed's set and a
copy to refill from. A baseline is keval's own code, with no cache to catch, and a set of
`one_buffer_bytes` or more is too large for placement or the L2 to favour one seed's values.
So a baseline times the first seed's set alone: its buffers, refilled from the drawn values
before each call as the candidate's are (the same copy before each sample on both sides), two
sets where it held one more than the case has seeds (KernelBenchX cases of 2 x 6 GiB sets).
"""

import torch

from .checks import storage_span
from .inputs import tensors_in


class OneSetInputs:
    """args: the baseline's own buffers (its set, shared like the candidate's); drawn: the same
    set's values, only read (the inputs memo's own tensors, or a draw of the baseline's)."""

    def __init__(self, entry, args, drawn):
        self.entry = entry
        self.args = args
        self.targets = [storage_span(t) for t in tensors_in(args)]
        self.sources = [storage_span(t) for t in tensors_in(drawn)]

    def prepare(self, k: int):
        """The k-th call, its inputs as drawn (any change the last call made undone)."""
        with torch.no_grad():
            for target, source in zip(self.targets, self.sources):
                target.copy_(source)
        entry, args = self.entry, self.args

        def call():
            return entry(*args)
        return call
