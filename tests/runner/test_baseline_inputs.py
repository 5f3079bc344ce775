"""A baseline's calls on one input set of a large timed case (baseline_inputs.py)."""

import torch

from keval_runner.baseline_inputs import OneSetInputs


def test_every_call_of_a_baseline_gets_its_inputs_as_drawn_and_the_drawn_set_stays_unchanged():
    def add_in_place(x, n):
        before = x.clone()
        x.add_(n)
        return before

    drawn = (torch.arange(6, dtype=torch.float32).reshape(2, 3).t(), 5)
    buffers = (drawn[0].clone().t().contiguous().t(), 5)  # same layout, memory of its own
    inputs = OneSetInputs(add_in_place, buffers, drawn)
    seen = [inputs.prepare(k)() for k in range(4)]
    assert all(torch.equal(s, drawn[0]) for s in seen)  # without the refill: +5, +10, +15
    assert torch.equal(drawn[0], torch.arange(6, dtype=torch.float32).reshape(2, 3).t())
    assert buffers[0].data_ptr() != drawn[0].data_ptr()
