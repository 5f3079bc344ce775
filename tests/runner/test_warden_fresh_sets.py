"""Where the warden draws each timed call's fresh set: on the job's device when the job draws
there (keval's own format), else on the CPU. On an H100, relu's 1 GiB sets drawn on the CPU
took 30 s a side and every timing job under the warden's CUDA clock ran to its deadline
(bench/runs/2026-12-05-session-31.md)."""

from types import SimpleNamespace

import pytest
import torch

import runner_harness  # noqa: F401  (puts runner/ on sys.path)
from keval_runner.warden import warden_timed_candidate
from keval_runner.warden.warden_timed_candidate import WardenTimedContender

pytestmark = pytest.mark.timeout(60)


def make_inputs(case, dtype, seed):
    return (torch.arange(case["n"], dtype=dtype) + seed % 7,)


def _contender(request: dict) -> list:
    drawn_where = []
    real = warden_timed_candidate._draw

    def draw(make, case, seed, where=None):
        drawn_where.append(where)
        return real(make, case, seed, where)

    job = SimpleNamespace(reference_fn=lambda x: x * 2, checks={"timed_output_check": True}, request=request,
                          device=torch.device("cpu"), make_inputs=make_inputs)
    case = {"name": "c", "dtype": "float32", "params": {"n": 5}}
    return drawn_where, draw, job, case


@pytest.mark.parametrize("request_fields, where", [({"inputs_on_device": True}, torch.device("cpu")),
                                                   ({"shared_inputs": True}, torch.device("cpu")),
                                                   ({}, None)])
def test_fresh_sets_are_drawn_where_the_job_draws(monkeypatch, request_fields, where):
    drawn_where, draw, job, case = _contender(request_fields)
    monkeypatch.setattr(warden_timed_candidate, "_draw", draw)
    contender = WardenTimedContender("candidate", job, SimpleNamespace(), case, "k", lambda header, fds: {"ok": True})
    try:
        fresh = contender._fresh()
    finally:
        contender.shared.close()
    assert drawn_where == [where, where]  # the arming set, then a timed call's
    assert fresh[0].shape == (5,)
