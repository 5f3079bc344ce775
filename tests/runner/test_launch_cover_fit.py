"""The launch cover fitted to a call (launch_cover.py): longer than the host takes to enqueue
the call, never shorter than the settings' cover, and the plain cover for a call that waits for
the GPU. A fake kernel and clock: the real cover needs CUDA (test_launch_cover_gpu.py)."""
from keval_runner.timing.launch_cover import MAX_COVER_US, PROBE_COVER_US, LaunchCover


class FakeKernel:
    def __init__(self):
        self.launched_ns = []

    def __getitem__(self, grid):
        return lambda duration_ns, num_warps: self.launched_ns.append(duration_ns)


class FakeEvent:
    def record(self):
        pass


class FakeClock:
    """Advances only when a call runs: by the call's enqueue time, or, for a call that waits
    for the GPU, by the cover just launched."""

    def __init__(self, kernel):
        self.kernel, self.now = kernel, 0.0

    def __call__(self):
        return self.now

    def call_taking(self, enqueue_us=None):
        def call():
            self.now += (self.kernel.launched_ns[-1] / 1e3 if enqueue_us is None else enqueue_us) / 1e6
        return lambda: call


def cover(base_us=200):
    kernel = FakeKernel()
    launch_cover = LaunchCover.__new__(LaunchCover)
    launch_cover._kernel, launch_cover._blocks, launch_cover._duration_ns = kernel, 132, int(base_us * 1000)
    launch_cover._begin = FakeEvent()
    return launch_cover, kernel


def test_a_call_slower_to_enqueue_than_the_cover_gets_a_cover_that_outlasts_it():
    launch_cover, kernel = cover()
    clock = FakeClock(kernel)
    fitted = launch_cover.fit_us(clock.call_taking(enqueue_us=900), clock, lambda: None)
    assert abs(fitted - (1.5 * 900 + 20)) < 1e-6
    # probed behind the probing cover, then, as long as that, behind the longest
    assert kernel.launched_ns == [PROBE_COVER_US * 1000] * 3 + [MAX_COVER_US * 1000] * 3
    assert [round(us) for us in launch_cover.fit_enqueues_us] == [900] * 6  # every probe's, kept


def test_a_quick_call_keeps_the_settings_cover():
    launch_cover, kernel = cover()
    clock = FakeClock(kernel)
    assert launch_cover.fit_us(clock.call_taking(enqueue_us=30), clock, lambda: None) == 200
    assert kernel.launched_ns == [PROBE_COVER_US * 1000] * 3  # never behind the longest cover
    assert [round(us) for us in launch_cover.fit_enqueues_us] == [30] * 3
    launch_cover.start()
    assert kernel.launched_ns[-1] == 200_000


def test_a_call_that_waits_for_the_gpu_keeps_the_settings_cover():
    launch_cover, kernel = cover()
    clock = FakeClock(kernel)
    assert launch_cover.fit_us(clock.call_taking(), clock, lambda: None) == 200


def test_no_call_gets_more_than_the_longest_cover():
    launch_cover, kernel = cover()
    clock = FakeClock(kernel)
    assert launch_cover.fit_us(clock.call_taking(enqueue_us=4_000), clock, lambda: None) == MAX_COVER_US


def test_the_cap_bounds_the_fitted_cover_but_never_goes_under_the_settings_cover():
    launch_cover, kernel = cover()
    clock = FakeClock(kernel)
    assert launch_cover.fit_us(clock.call_taking(enqueue_us=4_000), clock, lambda: None, cap_us=800) == 800
    assert launch_cover.fit_us(clock.call_taking(enqueue_us=4_000), clock, lambda: None, cap_us=50) == 200


def test_the_candidates_cover_is_capped_by_its_baselines_covers():
    """measure_interleaved fits the baselines first and caps the candidate's cover at theirs."""
    import torch
    from keval_runner.timing.interleaved_timing import Contender, measure_interleaved

    caps = {}

    class Recording(Contender):
        def warm_up(self, count, sampler, cover_cap_us=None):
            caps[self.who] = cover_cap_us
            self.cover_us = {"golden": 900.0, "eager": 400.0}.get(self.who, 5000.0)

    contenders = [Recording("candidate", lambda k: (lambda: torch.zeros(1))),
                  Recording("golden", lambda k: (lambda: torch.zeros(1))),
                  Recording("eager", lambda k: (lambda: torch.zeros(1)))]
    measure_interleaved(contenders, torch.device("cpu"), {"launch_cover_us": 200, "max_samples": 2, "min_samples": 1})
    assert caps == {"golden": None, "eager": None, "candidate": 900.0}



def test_a_sample_whose_enqueue_outlasted_its_cover_asks_for_a_longer_one():
    launch_cover, _ = cover()
    assert launch_cover.longer_us(900.0, enqueue_ms=0.8, cover_ms=0.9) is None  # covered
    assert abs(launch_cover.longer_us(900.0, enqueue_ms=1.0, cover_ms=0.9) - (1.5 * 1000 + 20)) < 1e-6
    assert launch_cover.longer_us(900.0, enqueue_ms=1.0, cover_ms=0.9, cap_us=1200) == 1200
    assert launch_cover.longer_us(1200.0, enqueue_ms=1.3, cover_ms=1.2, cap_us=1200) is None  # at its cap
    assert launch_cover.longer_us(MAX_COVER_US, enqueue_ms=6.0, cover_ms=5.0) is None
    # the plain cover stays: a quick call, or one that waits for the GPU (no cover hides that)
    assert launch_cover.longer_us(200.0, enqueue_ms=0.5, cover_ms=0.2) is None
    assert launch_cover.longer_us(None, enqueue_ms=0.5, cover_ms=0.2) is None


class ScriptedSampler:
    """A Sampler whose samples' enqueue times are scripted: (enqueue_ms, cover_ms) per take."""

    def __init__(self, script):
        import torch
        from keval_runner.timing.interleaved_timing import Sampler
        self.inner = Sampler(torch.device("cpu"), {}, l2=None, cover=cover()[0])
        self.script, self.covers_asked = list(script), []
        self.inner.take = self.take

    def take(self, call, cover_us=None, index=0):
        call()
        self.covers_asked.append(cover_us)
        self.inner.enqueue_ms, cover_ms = self.script.pop(0)
        return (0.01, 0.05, cover_ms, None)


def test_a_sample_with_a_host_gap_is_taken_again_behind_a_longer_cover():
    sampler = ScriptedSampler([(1.0, 0.9), (1.1, 1.52)])
    calls = []
    sample, cover_us = sampler.inner.take_covered(lambda: (lambda: calls.append(1)), 900.0)
    assert sampler.covers_asked == [900.0, 1520.0] and len(calls) == 2
    assert cover_us == 1520.0 and sample[2] == 1.52  # the kept sample is the covered one


def test_retakes_stop_at_the_cap_and_keep_the_last_sample():
    sampler = ScriptedSampler([(1.0, 0.9), (1.3, 1.0), (1.3, 1.0)])
    sample, cover_us = sampler.inner.take_covered(lambda: (lambda: None), 900.0, cap_us=1000)
    assert sampler.covers_asked == [900.0, 1000.0] and cover_us == 1000.0


def test_retakes_are_bounded():
    from keval_runner.timing.launch_cover import RETAKES
    sampler = ScriptedSampler([(1.0, 0.9)] * (RETAKES + 1))  # never covered, still growing
    sampler.inner.take_covered(lambda: (lambda: None), 900.0)
    assert len(sampler.covers_asked) == RETAKES + 1


def test_every_contender_takes_sample_i_with_index_i(monkeypatch):
    import torch
    from keval_runner.timing.interleaved_timing import Contender, Sampler, measure_interleaved

    taken, take = [], Sampler.take
    monkeypatch.setattr(Sampler, "take", lambda self, call, cover_us=None, index=0:
                        taken.append(index) or take(self, call, cover_us, index))
    contenders = [Contender(who, lambda k: (lambda: None)) for who in ("candidate", "golden")]
    measure_interleaved(contenders, torch.device("cpu"), {"max_samples": 3, "min_samples": 3})
    assert taken == [0, 0, 1, 1, 2, 2]  # one of each contender per round


def test_the_candidates_cap_follows_its_baselines_covers_as_they_lengthen():
    import torch
    from keval_runner.timing.interleaved_timing import Contender, measure_interleaved

    caps = []

    class Lengthening(Contender):
        def warm_up(self, count, sampler, cover_cap_us=None):
            self.cover_us = 900.0 if self.who == "golden" else 300.0

        def sample(self, sampler, cover_cap_us=None):
            if self.who == "golden":
                self.cover_us += 100.0
            else:
                caps.append(cover_cap_us)
            return (0.01, None, None, None)

    contenders = [Lengthening("candidate", None), Lengthening("golden", None)]
    measure_interleaved(contenders, torch.device("cpu"), {"launch_cover_us": 200, "max_samples": 3, "min_samples": 3})
    assert caps == [900.0, 1000.0, 1100.0]  # the candidate samples first in each round


def test_each_sample_moves_the_calls_buffers_with_pads_drawn_alike_in_every_process():
    """A few-µs kernel's time depends on where its buffers lie; the pads move a call's outputs
    from sample to sample, with the same draws on the warden's side and the guest's."""
    import torch
    from keval_runner.timing.interleaved_timing import Sampler

    def sizes(sampler, indices):
        return [[pad.numel() for pad in sampler.placement_pads(i)] for i in indices]

    used = Sampler(torch.device("cpu"), {}, l2=None, cover=None)
    sizes(used, range(37))  # an earlier case's samples: they must not move this case's draws
    drawn = sizes(used, range(20))
    assert drawn == sizes(Sampler(torch.device("cpu"), {}, l2=None, cover=None), range(20))
    assert drawn[5:] == sizes(used, range(5, 20))
    assert len({tuple(pair) for pair in drawn}) == 20  # new sizes for every sample
    for small, large in drawn:
        assert 0 < small < 1 << 20 and small % 512 == 0  # the allocator's small pool
        assert 1 << 20 < large < 3 << 20 and large % 512 == 0  # its large pool


def test_every_cover_length_launches_one_compiled_spin_kernel(monkeypatch):
    # Triton binds an int argument to a kernel variant by its value (a multiple of 16 or not,
    # 1): a fitted length that needed another variant compiled inside a timed sample.
    from triton.runtime.jit import create_function_from_signature

    from keval_runner.timing.launch_cover import _spin_kernel

    _spin_kernel.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.delenv("TRITON_INTERPRET", raising=False)  # the compiled kernel, not the interpreter's
            kernel = _spin_kernel()
    finally:
        _spin_kernel.cache_clear()
    bind = create_function_from_signature(kernel.signature, kernel.params, None)
    lengths_ns = [1, 200_000, 200_001, 1_000_000, 1_234_567, MAX_COVER_US * 1000 - 1]
    variants = {str(bind(ns)[1]) for ns in lengths_ns}
    assert len(variants) == 1, variants
