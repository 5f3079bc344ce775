"""The launch cover on a real GPU (skipped without one): host latency before a call's first
kernel stays out of the sample, and work hidden on a side stream still shows in host time."""

import time

import pytest
import torch

from keval_runner.timing.interleaved_timing import Contender, measure_interleaved
from keval_runner.timing.launch_cover import LaunchCover

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

SETTINGS = {"warmup": 2, "min_samples": 10, "max_samples": 10, "max_seconds": 2.0}
DEVICE = torch.device("cuda")


@pytest.fixture(autouse=True)
def compiled_for_the_gpu(monkeypatch):
    """The runner tests' harness sets TRITON_INTERPRET=1 for the CPU tests; the cover must compile."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)


def _cover():
    cover = LaunchCover.open(DEVICE, {"launch_cover_us": 200})
    assert cover is not None, LaunchCover.failure
    return cover


def _slow_host_call():
    """0.1 ms of host work, then one tiny kernel: the host latency a Triton launch can have."""
    x = torch.ones(1024, device=DEVICE)

    def call():
        until = time.perf_counter() + 100e-6
        while time.perf_counter() < until:
            pass
        return x + 1

    return call


def _median(values):
    return sorted(values)[len(values) // 2]


def _measure(call, cover):
    contender = Contender("candidate", lambda k: call)
    measure_interleaved([contender], DEVICE, SETTINGS, clock=None, l2=None, cover=cover)
    return contender


def test_cover_compiles_and_has_its_length():
    contender = _measure(_slow_host_call(), _cover())
    assert 0.19 < _median(contender.cover_ms) < 0.5


def test_host_latency_stays_out_of_covered_samples():
    call = _slow_host_call()
    bare = _measure(call, None)
    covered = _measure(call, _cover())
    assert _median(bare.samples) > 0.09  # the idle GPU waited for the host
    assert _median(covered.samples) < 0.05
    # the host's latency ran under the cover, so the host time less the cover stays near the
    # event time: no false side-stream alarm (judge: host > 1.5 x event + 0.05 ms)
    assert _median(covered.host_samples) < 1.5 * _median(covered.samples) + 0.05


def test_side_stream_work_cannot_hide_under_the_cover():
    side = torch.cuda.Stream()
    out = torch.empty(1, device=DEVICE)

    def call():
        with torch.cuda.stream(side):
            torch.cuda._sleep(100_000)  # ~50 µs at 2 GHz: shorter than the cover
        return out

    covered = _measure(call, _cover())
    host, event = _median(covered.host_samples), _median(covered.samples)
    assert host > 0.04 and host > 4 * event, (host, event)


def test_covers_of_any_length_use_the_binary_compiled_at_open():
    from keval_runner.timing.launch_cover import _spin_kernel

    cover = _cover()
    for us in (123.457, 200.001, 1_000, 4_999.99):
        cover.start(us)
    torch.cuda.synchronize()
    compiled = _spin_kernel().device_caches[torch.cuda.current_device()][0]
    assert len(compiled) == 1, list(compiled)
