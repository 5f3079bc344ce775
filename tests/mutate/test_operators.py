"""Each operator on a small Triton source changes exactly what it says, once per site, and
yields a program that still parses."""
import ast
import textwrap

import pytest

from keval_mutate.mutants import make_mutants
from keval_mutate.operators import BY_NAME, OPERATORS

KERNEL = textwrap.dedent('''\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def _kernel(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)  # one row per program
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
        num = tl.exp(x - tl.max(x, axis=0))
        acc = tl.zeros([BLOCK], tl.float32)
        w = tl.load(y_ptr + cols, mask=mask, other=0.0)
        mean = tl.sum(w, axis=0) / n_cols
        y = num / tl.sum(num, axis=0) * 0.5 + mean + eps
        tl.store(y_ptr + row * n_cols + cols, y, mask=mask)


    def host(x, eps=1e-5):
        threshold = 1.5  # not in a kernel: only constant_perturbed looks here
        return x
    ''')


def changes(operator: str, source: str = KERNEL) -> list:
    """[(removed lines, added lines)] of each mutant of `source` by `operator`."""
    out = []
    for mutant in make_mutants("t", source, "t/golden.py", [BY_NAME[operator]]):
        assert not mutant.invalid, mutant.invalid
        ast.parse(mutant.code)  # valid Python
        removed = [l[1:].strip() for l in mutant.diff.splitlines() if l.startswith("-") and not l.startswith("---")]
        added = [l[1:].strip() for l in mutant.diff.splitlines() if l.startswith("+") and not l.startswith("+++")]
        assert len(removed) == len(added) == 1, mutant.diff  # one line changed, the rest kept
        out.append((removed[0], added[0]))
    return out


def test_mask_dropped_removes_mask_and_other_from_each_load_and_store():
    assert changes("mask_dropped") == [
        ('x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)',
         "x = tl.load(x_ptr + row * n_cols + cols).to(tl.float32)"),
        ("w = tl.load(y_ptr + cols, mask=mask, other=0.0)", "w = tl.load(y_ptr + cols)"),
        ("tl.store(y_ptr + row * n_cols + cols, y, mask=mask)", "tl.store(y_ptr + row * n_cols + cols, y)"),
    ]


def test_mask_weakened_turns_the_bounds_check_inclusive():
    assert changes("mask_weakened") == [("mask = cols < n_cols", "mask = cols <= n_cols")]


def test_other_swaps_zero_and_minus_infinity():
    assert changes("other_swapped") == [
        ('x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)',
         "x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)"),
        ("w = tl.load(y_ptr + cols, mask=mask, other=0.0)",
         "w = tl.load(y_ptr + cols, mask=mask, other=-float('inf'))"),
    ]


def test_size_parity_branches_wrap_the_mask_as_tensors():
    assert changes("mask_dead_on_odd_sizes") == [
        ("mask = cols < n_cols", "mask = (cols < n_cols) & (cols * 0 + n_cols % 2 == 0)")]
    assert changes("unmasked_on_even_sizes") == [
        ("mask = cols < n_cols", "mask = (cols < n_cols) | (cols * 0 + n_cols % 2 == 0)")]


def test_offset_plus_one_shifts_each_pointer():
    assert [added for _, added in changes("offset_plus_one")] == [
        'x = tl.load(x_ptr + row * n_cols + cols + 1, mask=mask, other=-float("inf")).to(tl.float32)',
        "w = tl.load(y_ptr + cols + 1, mask=mask, other=0.0)",
        "tl.store(y_ptr + row * n_cols + cols + 1, y, mask=mask)",
    ]


def test_arange_shifted_starts_the_block_at_one():
    assert changes("arange_shifted") == [("cols = tl.arange(0, BLOCK)", "cols = tl.arange(0, BLOCK) + 1")]


def test_program_id_swapped_keeps_the_comment():
    assert changes("program_id_swapped") == [
        ("row = tl.program_id(0).to(tl.int64)  # one row per program",
         "row = tl.program_id(1).to(tl.int64)  # one row per program")]


def test_max_subtraction_removed_and_skipped_on_odd_sizes():
    assert changes("max_subtraction_removed") == [
        ("num = tl.exp(x - tl.max(x, axis=0))", "num = tl.exp(x)")]
    assert changes("max_subtraction_skipped_on_odd_sizes") == [
        ("num = tl.exp(x - tl.max(x, axis=0))",
         "num = tl.exp(x - tl.where(n_cols % 2 == 1, 0.0, tl.max(x, axis=0)))")]


def test_sum_and_mean_confused():
    assert changes("sum_to_mean") == [
        ("mean = tl.sum(w, axis=0) / n_cols", "mean = (tl.sum(w, axis=0) / w.shape[0]) / n_cols"),
        ("y = num / tl.sum(num, axis=0) * 0.5 + mean + eps",
         "y = num / (tl.sum(num, axis=0) / num.shape[0]) * 0.5 + mean + eps"),
    ]
    assert changes("mean_to_sum") == [("mean = tl.sum(w, axis=0) / n_cols", "mean = tl.sum(w, axis=0)")]


def test_accumulator_lowered_only_where_float32_is_computed_in():
    assert [added for _, added in changes("accumulator_lowered")] == [
        'x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float16)',
        "acc = tl.zeros([BLOCK], tl.float16)",
    ]


def test_constant_perturbed_eps_tenfold_other_floats_by_one_percent():
    assert changes("constant_perturbed") == [
        ("y = num / tl.sum(num, axis=0) * 0.5 + mean + eps", "y = num / tl.sum(num, axis=0) * 0.505 + mean + eps"),
        ("def host(x, eps=1e-05):".replace("1e-05", "1e-5"), "def host(x, eps=0.0001):"),
        ("threshold = 1.5  # not in a kernel: only constant_perturbed looks here",
         "threshold = 1.515  # not in a kernel: only constant_perturbed looks here"),
    ]


def test_host_code_is_left_alone_by_kernel_operators():
    for source, host_line in ((KERNEL, "def host(x, eps=1e-5):"), (LOOPED, "def host(a, b):")):
        for operator in OPERATORS:
            if operator.host:
                continue
            for mutant in make_mutants("t", source, "t/golden.py", [operator]):
                assert mutant.line < source.splitlines().index(host_line) + 1, mutant.id


def test_host_operators_leave_the_kernels_alone():
    host_line = LOOPED.splitlines().index("def host(a, b):") + 1
    for operator in OPERATORS:
        if operator.host and operator.name != "constant_perturbed":
            for mutant in make_mutants("t", LOOPED, "t/golden.py", [operator]):
                assert mutant.line > host_line, mutant.id


LOOPED = textwrap.dedent('''\
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def _kernel(a_ptr, b_ptr, out_ptr, n_cols, stride_am, stride_ak, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        acc = tl.zeros([BLOCK], tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            a = tl.load(a_ptr + row * stride_am + cols * stride_ak, mask=cols < n_cols, other=0.0)
            acc += a.to(tl.float32)
        for i in tl.range(1, n_cols, num_stages=2):
            acc += i
        offs = row * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


    def host(a, b):
        out = torch.empty_like(a)
        idx = torch.empty((4,), dtype=torch.int32, device=a.device)
        acc = torch.zeros(4, dtype=torch.float32, device=a.device)
        _kernel[(4,)](a, b, out, a.shape[1], a.stride(0), a.stride(1), BLOCK=16)
        return out
    ''')


def test_loop_one_block_stops_each_loop_after_its_first_step():
    assert [added for _, added in changes("loop_one_block", LOOPED)] == [
        "for start in range(0, BLOCK, BLOCK):",
        "for i in tl.range(1, 1 + 1, num_stages=2):",
    ]


def test_stride_swapped_swaps_a_tensors_neighbouring_strides_at_the_launch():
    assert [added for _, added in changes("stride_swapped", LOOPED)] == [
        "_kernel[4,](a, b, out, a.shape[1], a.stride(1), a.stride(0), BLOCK=16)"]


def test_index_transposed_reads_a_row_major_address_column_major():
    # r * S + c * T is strided both ways already: left alone; the row-major offsets are not
    assert [added for _, added in changes("index_transposed", LOOPED)] == [
        "offs = row + tl.arange(0, BLOCK) * BLOCK"]
    assert [added for _, added in changes("index_transposed")] == [
        'x = tl.load(x_ptr + row + cols * n_cols, mask=mask, other=-float("inf")).to(tl.float32)',
        "tl.store(y_ptr + row + cols * n_cols, y, mask=mask)",
    ]


def test_store_rounded_rounds_each_stored_value_through_float16():
    assert [added for _, added in changes("store_rounded", LOOPED)] == [
        "tl.store(out_ptr + offs, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty).to(tl.float16))"]


def test_output_dtype_changed_and_input_written_in_place_change_the_allocations():
    assert [added for _, added in changes("output_dtype_changed", LOOPED)] == [
        "out = torch.empty_like(a, dtype=torch.float32)",
        "idx = torch.empty((4,), device=a.device, dtype=torch.float32)",
        "acc = torch.zeros(4, device=a.device, dtype=torch.float16)",
    ]
    assert changes("input_written_in_place", LOOPED) == [("out = torch.empty_like(a)", "out = a")]


def test_accumulator_bfloat16_lowers_where_accumulator_lowered_does():
    lowered = [added for _, added in changes("accumulator_lowered", LOOPED)]
    assert lowered == ["acc = tl.zeros([BLOCK], tl.float16)", "acc += a.to(tl.float16)"]
    assert [added for _, added in changes("accumulator_bfloat16", LOOPED)] == [
        line.replace("float16", "bfloat16") for line in lowered]


def test_ids_are_stable_and_duplicates_dropped():
    first = [m.id for m in make_mutants("t", KERNEL, "t/golden.py")]
    assert first == [m.id for m in make_mutants("t", KERNEL, "t/golden.py")]
    assert len(set(first)) == len(first)
    codes = [m.code for m in make_mutants("t", KERNEL, "t/golden.py")]
    assert len(set(codes)) == len(codes) and KERNEL not in codes


@pytest.mark.parametrize("task", ["vector_add", "relu", "softmax", "layer_norm", "row_sum", "cumsum"])
def test_every_core_golden_gives_valid_mutants_of_several_operators(task):
    from conftest import REPO
    source = (REPO / "suites" / "keval" / task / "golden.py").read_text()
    mutants = make_mutants(task, source, f"{task}/golden.py")
    assert len({m.operator for m in mutants}) >= 8
    for mutant in mutants:
        assert not mutant.invalid
        compile(mutant.code, mutant.id, "exec")
