"""The predictor's features of a known kernel: its launches found by running its host code on fake
tensors, against its task's golden, and compiled for sm_90 without a GPU."""
import math

import pytest

from conftest import REPO
from keval_dataset import launch_table
from keval_dataset.dry_launch import TaskInputs, launches
from keval_dataset.launch_features import launch_features

GOLDEN = (REPO / "suites/keval/vector_add/golden.py").read_text()
# the golden's launch with BLOCK 2048 and 8 warps made BLOCK 512 and 4 warps
VARIANT = GOLDEN.replace("BLOCK = 2048", "BLOCK = 512").replace("num_warps=8", "num_warps=4")
CASE, DTYPE = "large_2p27", "float16"  # n = 2^27


def dry(code):
    found, why = launches(code, TaskInputs(str(REPO / "suites/keval/vector_add")), CASE, DTYPE)
    assert why is None
    return [launch.as_dict() for launch in found]


def test_the_launch_is_read_as_the_gpu_would_get_it():
    (launch,) = dry(GOLDEN)
    assert launch["kernel"] == "_add_kernel" and launch["grid"] == [2 ** 27 // 2048, 1, 1]
    assert launch["num_warps"] == 8 and launch["num_stages"] == 3 and launch["constexprs"] == {"BLOCK": 2048}
    assert launch["arg_dtypes"] == ["float16", "float16", "float16", "i32"]


def test_features_of_a_variant_alone_and_against_the_golden():
    features = launch_features(dry(VARIANT), dry(GOLDEN))
    assert features["launch_programs_log2"] == 18 and features["launch_tile_log2"] == 9
    assert features["launch_warps_log2"] == 2 and features["launch_elems_per_thread_log2"] == 2  # 512 / 128
    assert features["launch_waves_log2"] == pytest.approx(math.log2(2 ** 18 / 132))
    assert features["vs_golden_programs_log2"] == 2 and features["vs_golden_tile_log2"] == -2
    assert features["vs_golden_warps_log2"] == -1 and features["vs_golden_stages"] == 0
    assert features["vs_golden_distance"] == 5 and features["vs_golden_moves"] == 3


def test_without_launches_every_launch_feature_is_unknown():
    features = launch_features([], None)
    assert all(math.isnan(v) for v in features.values())


def test_a_program_that_hangs_costs_its_own_row_only(tmp_path):
    hang = GOLDEN.replace("    x = x.contiguous()\n", "    while True:\n        pass\n", 1)
    rows = [{"x": code, "suite": "keval", "task": "vector_add", "case": CASE, "dtype": DTYPE}
            for code in (VARIANT, hang, GOLDEN)]
    found = launch_table.table(rows, str(tmp_path / "cache.jsonl"), seconds=5)
    assert found[launch_table.key(rows[1])]["why"] == "timeout"
    assert found[launch_table.key(rows[0])]["launches"][0]["grid"] == [2 ** 18, 1, 1]
    assert found[launch_table.key(rows[2])]["launches"][0]["grid"] == [2 ** 16, 1, 1]  # in a new child
    again = launch_table.table(rows, str(tmp_path / "cache.jsonl"), seconds=5)  # from the cache, no child
    assert again == found


def test_the_compiled_kernel_reports_registers_and_the_spills_of_an_oversized_tile():
    from keval_dataset.compiled_kernel import compile_launch
    from keval_dataset.dry_launch import _module

    small = compile_launch(_module("m_small", GOLDEN, "<golden>")._add_kernel, dry(GOLDEN)[0])
    assert 0 < small["registers"] <= 64 and small["spill_stores"] == 0
    assert small["ttgir_loads"] == 2 and small["ttgir_stores"] == 1 and small["ptx_global_loads"] > 0
    wide_code = GOLDEN.replace("BLOCK = 2048", "BLOCK = 4096").replace("num_warps=8", "num_warps=1")
    wide = compile_launch(_module("m_wide", wide_code, "<wide>")._add_kernel, dry(wide_code)[0])
    assert wide["registers"] > small["registers"]  # 128 elements a thread against 8


def test_the_feature_matrix_holds_each_rows_launch_and_its_place_in_the_problem(tmp_path):
    from keval_dataset.feature_table import feature_matrix

    blocks = (256, 1024, 4096)  # written as shifts: the text shows `1 << 8`, the launch 256
    codes = [GOLDEN.replace("BLOCK = 2048", f"BLOCK = 1 << {b.bit_length() - 1}") for b in blocks]
    rows = [{"x": code, "suite": "keval", "task": "vector_add", "case": CASE, "dtype": DTYPE,
             "submission_id": f"v{i}", "shapes": {"n": 2 ** 27}} for i, code in enumerate(codes)]
    X, names = feature_matrix(rows, ["p"] * 3, cache=str(tmp_path))
    column = {name: [row[j] for row in X] for j, name in enumerate(names)}
    assert column["launch_tile_log2"] == [8, 10, 12]
    assert column["in_problem_launch_tile_log2"] == [-2, 0, 2]  # less the problem's median, 10
    assert column["vs_golden_tile_log2"] == [-3, -1, 1]  # the golden's 2048 from suites/keval
    assert "compiled_registers" not in column  # compiled features only when asked for
    # the H200 model (hardware_model.py): larger tiles keep more bytes in flight, so run faster
    assert column["hw_time_log2"][0] > column["hw_time_log2"][1] > column["hw_time_log2"][2]
    assert column["rank_hw_time_log2"] == [1.0, 0.5, 0.0]
