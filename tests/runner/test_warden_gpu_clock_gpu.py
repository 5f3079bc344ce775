"""The warden's CUDA clock on a real GPU (skipped without one): its copies are kernels that copy
every dtype and layout exactly, and a stream waits for a word another stream writes."""

import pytest
import torch

from keval_runner import stream_flags
from keval_runner.warden_gpu_clock import copy_by_kernel

pytestmark = [pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
              pytest.mark.timeout(120)]

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int8, torch.bool,
          torch.complex64, torch.float8_e4m3fn]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_copy_by_kernel_copies_every_bit_into_any_layout(dtype):
    raw = torch.randint(0, 256, (64, 48 * torch.empty(0, dtype=dtype).element_size()), dtype=torch.uint8,
                        device="cuda")
    value = raw.view(dtype)
    target = torch.empty(value.shape[1], value.shape[0], dtype=dtype, device="cuda").t()  # strided
    copy_by_kernel(target, value)
    assert torch.equal(target.view(torch.uint8) if dtype.itemsize == 1 else target.contiguous().view(torch.uint8),
                       value.contiguous().view(torch.uint8))


def test_a_stream_waits_for_the_word_another_stream_writes():
    words = torch.zeros(2, dtype=torch.int32, device="cuda")
    waiting, writing = torch.cuda.Stream(), torch.cuda.Stream()
    out = torch.zeros(1, device="cuda")
    stream_flags.wait_at_least(waiting, words.data_ptr(), 3)
    with torch.cuda.stream(waiting):
        out.fill_(1.0)
    torch.cuda._sleep(1_000_000)  # the default stream busy a while: the wait must still hold
    assert out.item() == 0.0 or not waiting.query()
    stream_flags.write(writing, words.data_ptr(), 3)
    waiting.synchronize()
    assert out.item() == 1.0
