"""The predictor's features that model the hardware and the golden: FLOPs and bytes from the task's
expressions, the roofline time, and the distance of a variant's tuning constants from its golden."""
import json

from keval_dataset.features import features
from keval_dataset.golden_distance import distance_features
from keval_dataset.work_features import arithmetic

GOLDEN = "BLOCK_M = 128\nBLOCK_N = 64\nk[(g,)](x, num_warps=4, num_stages=3)\n"


def test_task_expressions_give_flops_bytes_and_a_memory_bound_roofline():
    assert arithmetic("2 * M * N * K", {"M": 4, "N": 8, "K": 2}) == 128.0
    assert arithmetic("(rows * cols) * elem", {"rows": 3, "cols": 5, "elem": 2}) == 30.0
    assert arithmetic("__import__('os')", {}) is None and arithmetic("M * Q", {"M": 1}) is None
    row = {"suite": "keval", "task": "matmul", "shapes": json.dumps({"M": 4096, "N": 4096, "K": 4096}),
           "dtype": "float16", "x": "tl.dot(a, b)\nBLOCK_M = 128\n"}
    f = features(row)
    assert f["flops_log2"] == 1 + 3 * 12 and f["has_work_model"] == 1.0
    assert f["memory_bound"] == 0.0  # 2*4096^3 FLOPs on tensor cores outlast 96 MiB at 4.8 TB/s
    copy = dict(row, task="vector_add", shapes=json.dumps({"n": 1 << 24}), x="BLOCK = 1024\n")
    assert features(copy)["memory_bound"] == 1.0


def test_distance_from_the_golden_counts_each_changed_constant_in_log2():
    variant = GOLDEN.replace("BLOCK_M = 128", "BLOCK_M = 32").replace("num_warps=4", "num_warps=8")
    d = distance_features(variant, GOLDEN)
    assert d["golden_distance"] == 3.0 and d["golden_changed"] == 2.0
    assert d["golden_diff_0"] == -2.0 and d["golden_diff_2"] == 1.0
    assert distance_features(GOLDEN, GOLDEN)["golden_distance"] == 0.0
    assert distance_features(variant, None)["golden_known"] == 0.0
