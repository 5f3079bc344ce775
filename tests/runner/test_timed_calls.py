"""Several calls a timed sample (warden/timed_calls.py): how many, and every one of them checked
by the warden through the real runner on the CPU."""

import pytest

from keval_runner.warden import timed_calls
from keval_runner.warden.timed_calls import calls_per_sample
from runner_harness import all_checks, case, of_type, only

pytestmark = pytest.mark.timeout(300)

GIB = 1 << 30
THREE_CALLS = {"enabled": True, "warmup": 1, "min_samples": 4, "max_samples": 4, "max_seconds": 30.0,
               "timed_calls_max": 3, "timed_calls_bytes": GIB}


def test_calls_fill_the_bytes_beside_the_first_set_up_to_the_most(monkeypatch):
    monkeypatch.delenv(timed_calls.ENV_CALLS, raising=False)
    settings = {"timed_calls_max": 8, "timed_calls_bytes": GIB}
    assert calls_per_sample(1 << 20, settings) == 8  # small sets: the most
    assert calls_per_sample(GIB // 3, settings) == 4  # three more fit beside the first
    assert calls_per_sample(2 * GIB, settings) == 1  # none more fits
    assert calls_per_sample(0, settings) == 8
    assert calls_per_sample(1 << 20, {}) == 1  # a request without them: one call a sample


def test_a_fixed_count_from_the_environment_wins_and_a_bad_one_is_named(monkeypatch):
    monkeypatch.setenv(timed_calls.ENV_CALLS, "5")
    assert calls_per_sample(10 * GIB, {"timed_calls_max": 1}) == 5
    for bad in ("0", "two"):
        monkeypatch.setenv(timed_calls.ENV_CALLS, bad)
        with pytest.raises(ValueError, match="KEVAL_TIMED_CALLS"):
            calls_per_sample(1, {})


def test_each_sample_holds_three_calls_on_sets_of_their_own_each_checked(runner, jobs):
    messages = runner.run(jobs.candidate("correct", cases=[case(seeds=[1])], timing=THREE_CALLS,
                                         checks=all_checks()))
    assert of_type(messages, "error") == [] and of_type(messages, "tampering") == []
    timing = only(messages, "timing")
    samples = len(timing["samples_ms"])
    assert timing["timed_by"] == "warden" and timing["calls_per_sample"] == 3 and samples == 4
    assert timing["timed_output_checks"] == 3 * samples and timing["timed_output_mismatches"] == 0
    # the armed sets, then three fresh ones for each warm-up and each sample
    assert timing["input_sets"] == 3 * (1 + THREE_CALLS["warmup"] + samples)


def test_one_wrong_call_of_three_in_each_sample_is_counted(runner, jobs):
    messages = runner.run(jobs.candidate("wrong_on_every_third_call", cases=[case(seeds=[1])],
                                         timing=THREE_CALLS, checks=all_checks()))
    timing = only(messages, "timing")
    assert timing["calls_per_sample"] == 3 and timing["timed_output_checks"] == 3 * len(timing["samples_ms"])
    assert timing["timed_output_mismatches"] == len(timing["samples_ms"]), timing


def test_the_null_round_trip_measured_again_beside_the_samples_only_ever_lowers_it(monkeypatch):
    from keval_runner.warden.warden_timed_candidate import TimedGuest

    timed = TimedGuest(guest=None)
    measured = iter([0.30, 0.25, 0.90])
    monkeypatch.setattr(timed, "_null_round_trips", lambda calls: next(measured))
    assert timed.calibrate() == 0.30  # before the submission loads
    assert timed.recalibrate() == 0.25  # beside the samples, the device quieter: taken
    # calls slowed on purpose (or a busier moment) keep the figure it had
    assert timed.recalibrate() == 0.25 and timed.overhead_ms == 0.25

