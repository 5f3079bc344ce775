"""The CPU interpreter's bounds check (runner/keval_runner/interpreter/interpreter_memcheck.py): in this
process on small kernels, and through the real runner (a guest that catches the exception
still fails, a store past an output the submission allocated is seen)."""

import pytest
import torch
import triton
import triton.language as tl

from keval_runner.interpreter import interpreter_memcheck
from keval_runner.interpreter.interpreter_memcheck import OutOfBounds, checking, enable_memcheck, take_violation
from runner_harness import all_checks, of_type, only


@triton.jit
def _copy(src_ptr, dst_ptr, n, reach, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=offsets < reach), mask=offsets < n)


@triton.jit
def _count(counter_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.atomic_add(counter_ptr + offsets, 1, mask=offsets < n)


@pytest.fixture(scope="module", autouse=True)
def memcheck():
    assert enable_memcheck() == ""


def copy(src, dst, n, reach):
    _copy[(triton.cdiv(n, 16),)](src, dst, n, reach, BLOCK=16)


def test_accesses_inside_the_tensors_pass():
    src, dst = torch.arange(20, dtype=torch.float32), torch.zeros(20)
    with checking([src]):
        copy(src, dst, 20, 20)
    assert torch.equal(src, dst) and take_violation() is None


def test_a_read_one_past_an_input_raises_and_names_it():
    src, dst = torch.arange(20, dtype=torch.float32), torch.zeros(20)
    with checking([src]), pytest.raises(Exception) as raised:
        copy(src, dst, 20, 21)
    found = take_violation()
    assert isinstance(found, OutOfBounds) and found in (raised.value, raised.value.__cause__)
    assert str(found) == ("kernel _copy: load of 1 lane(s) out of bounds, the first 1 element(s) past the end of "
                          "src_ptr (20 elements)")
    assert take_violation() is None  # taken once


def test_an_input_is_bounded_by_its_own_span_not_its_storage():
    # the judge's inputs sit between guard bands: a larger storage around them
    storage = torch.zeros(64)
    src, dst = storage[16:36], torch.zeros(20)
    copy(src, dst, 20, 21)  # not armed: nothing is checked
    with checking():
        copy(src, dst, 20, 21)  # a view of a buffer the kernel may own: its storage bounds it
    assert take_violation() is None
    with checking([src, storage[40:60]]), pytest.raises(Exception):  # two inputs in one region
        copy(src, dst, 20, 21)
    assert "1 element(s) past the end of src_ptr (20 elements)" in str(take_violation())
    assert interpreter_memcheck._narrowed == {}  # forgotten after the block


def test_a_store_past_an_allocation_and_a_stray_atomic_are_caught_before_they_land():
    src, dst = torch.arange(20, dtype=torch.float32), torch.zeros(10)
    with checking(), pytest.raises(Exception):
        copy(src, dst, 20, 20)  # the first program's block already reaches 6 past dst
    found = str(take_violation())
    assert "store of 6 lane(s)" in found and "1 element(s) past the end of dst_ptr (10 elements)" in found, found
    counter = torch.zeros(4, dtype=torch.int32)
    with checking(), pytest.raises(Exception):
        _count[(1,)](counter, 5, BLOCK=8)
    assert "atomic of 1 lane(s)" in str(take_violation())
    assert counter.tolist() == [0, 0, 0, 0]  # refused before any lane was added


# -- through the runner -----------------------------------------------------------------------

def test_a_submission_that_catches_the_exception_still_fails(runner, jobs):
    messages = runner.run(jobs.candidate("oob_store_caught", checks=all_checks()))
    error = of_type(messages, "error")[0]
    assert (error["stage"], error["error_kind"]) == ("call", "OutOfBounds"), error
    assert "store of 1 lane(s) out of bounds, the first 1 element(s) past the end of x_ptr" in error["message"]
    assert all(call["guard_violations"] == [] for call in of_type(messages, "call"))  # refused: never landed


def test_a_store_past_an_output_the_submission_allocated_is_out_of_bounds(runner, jobs):
    error = of_type(runner.run(jobs.candidate("oob_store_own_output", checks=all_checks())), "error")[0]
    assert error["error_kind"] == "OutOfBounds" and "past the end of out_ptr (1000 elements)" in error["message"]


def test_a_correct_kernel_passes_with_its_outputs(runner, jobs):
    messages = runner.run(jobs.candidate("correct", determinism=True, checks=all_checks()))
    assert of_type(messages, "error") == [] and only(messages, "determinism")["same"] is True
