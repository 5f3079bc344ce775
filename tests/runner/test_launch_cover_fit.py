"""The launch cover fitted to a call (launch_cover.py): longer than the host takes to enqueue
the call, never shorter than the settings' cover, and the plain cover for a call that waits for
the GPU. A fake kernel and clock: the real cover needs CUDA (test_launch_cover_gpu.py)."""
from keval_runner.launch_cover import MAX_COVER_US, LaunchCover


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
    assert kernel.launched_ns == [MAX_COVER_US * 1000] * 3  # probed behind the longest cover


def test_a_quick_call_keeps_the_settings_cover():
    launch_cover, kernel = cover()
    clock = FakeClock(kernel)
    assert launch_cover.fit_us(clock.call_taking(enqueue_us=30), clock, lambda: None) == 200
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
    from keval_runner.interleaved_timing import Contender, measure_interleaved

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

