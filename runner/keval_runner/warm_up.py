"""Runs the runner's own CPU paths once in the zygote.

Modules that torch and Triton import lazily on first use (Triton's interpreter pulls in its
code generator and gluon; torch its serialization helpers) are then loaded once, in the
zygote, instead of in every child: jobs start faster, and a child that the sandbox has
switched to an unprivileged uid does not need to read the Python installation for them.
Never touches CUDA; a failure here is only a lost speed-up.
"""

import io
import os
import sys

import triton.language as tl


def _add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):  # interpreted once (never @jit: no GPU here)
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)


def _interpreted_kernel(torch) -> None:
    from triton.runtime.interpreter import InterpretedFunction

    kernel = InterpretedFunction(_add_one)
    x = torch.zeros(10)
    out = torch.empty_like(x)
    kernel[(1,)](x, out, 10, BLOCK=16)


def warm_up(torch) -> None:
    from .compare.compare import compare_outputs, max_abs_diff, tensors_identical
    from .handoff.output_files import plain_cpu_copy

    try:
        import triton.compiler.code_generator  # noqa: F401  (first compile or interpretation)
        import triton.language.extra.libdevice  # noqa: F401
    except Exception:
        pass
    try:
        torch.get_default_device()
        with torch.device("cpu"), torch.no_grad():
            x = torch.randn(8, generator=torch.Generator().manual_seed(0))
            for dtype in (torch.float16, torch.bfloat16, torch.float64, torch.int32, torch.bool):
                x.to(dtype).clone()
            buffer = io.BytesIO()
            torch.save([plain_cpu_copy(x)], buffer)
            buffer.seek(0)
            torch.load(buffer, map_location="cpu", weights_only=True)
            compare_outputs([x], [x + 1], 1e-6, 1e-6)
            tensors_identical(x, x.clone())
            max_abs_diff([x], [x])
            torch.testing.assert_close(x, x)
            if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
                _interpreted_kernel(torch)
    except Exception as exc:
        print(f"keval_runner: warm-up failed: {exc!r}", file=sys.stderr)
