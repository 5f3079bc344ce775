"""keval predict train|eval|noise end to end on a small export written here in makora's schema."""
import json
import math
import random

import pyarrow as pa
import pyarrow.parquet as pq

from conftest import run_keval

TEMPLATE = '''import triton
import triton.language as tl

@triton.jit
def kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n), mask=i < n)

def launch(x, y):
    kernel[(triton.cdiv(x.numel(), {block}),)](x, y, x.numel(), BLOCK={block}, num_warps={warps})
'''


def latency(block, warps, size):
    # a made-up but learnable law: bigger blocks are faster up to 1024, 4 warps are best
    return size * 1e-6 * (1 + abs(math.log2(block) - 10) * 0.3 + abs(math.log2(warps) - 2) * 0.2)


def rows(problems, seed, noise=0.0):
    rng = random.Random(seed)
    out = []
    for p in problems:
        size = 2 ** (16 + p % 8)
        for block in (64, 128, 256, 512, 1024, 2048, 4096):
            for warps in (1, 2, 4, 8, 16):
                y = latency(block, warps, size) * (1 + rng.uniform(-noise, noise))
                failed = block * warps > 32768  # too large: fails, a null label
                out.append({"x": TEMPLATE.format(block=block, warps=warps), "y": None if failed else y,
                            "keval_problem": f"keval/p{p}/big/float32", "program_hash": f"{p}-{block}-{warps}",
                            "shapes": json.dumps({"n": size}), "dtype": "float32"})
    return out


def write_export(folder, seed=0, noise=0.0):
    folder.mkdir()
    train = rows(range(0, 12), seed, noise)
    test = rows(range(12, 16), seed, noise)
    for r in test:
        r["problem_id"], r["holdout_group"] = r["keval_problem"], "full"
    pq.write_table(pa.Table.from_pylist(train), folder / "train.parquet")
    pq.write_table(pa.Table.from_pylist(test), folder / "test.parquet")


def test_train_then_eval_reports_every_figure_on_full_problems(tmp_path):
    write_export(tmp_path / "e")
    model = tmp_path / "model.pkl"
    trained = json.loads(run_keval("predict", "train", "--data", tmp_path / "e", "--model", model).stdout)
    assert trained["ranker"] is True and trained["lambdarank"] is True  # the rows name their problem
    report = json.loads(run_keval("predict", "eval", "--data", tmp_path / "e", "--model", model).stdout)
    assert report["group"] == "full" and report["problems"] == 4
    assert report["spearman"] > 0.6 and report["kendall"] > 0.4  # the law is learnable from the text
    assert report["best_within_5pct"] is not None and 0 <= report["mape"] < 1
    assert report["fail_auroc"] > 0.9  # failure is a function of BLOCK * num_warps


def test_rows_that_name_no_problem_train_the_regressor_alone(tmp_path):
    folder = tmp_path / "makora"
    folder.mkdir()
    train = [{k: v for k, v in r.items() if k != "keval_problem"} for r in rows(range(0, 12), 0)]
    test = rows(range(12, 16), 0)
    for r in test:
        r["problem_id"], r["holdout_group"] = r.pop("keval_problem"), "full"
    pq.write_table(pa.Table.from_pylist(train), folder / "train.parquet")
    pq.write_table(pa.Table.from_pylist(test), folder / "test.parquet")
    model = tmp_path / "model.pkl"
    trained = json.loads(run_keval("predict", "train", "--data", folder, "--model", model).stdout)
    assert trained["ranker"] is False
    report = json.loads(run_keval("predict", "eval", "--data", folder, "--model", model).stdout)
    assert report["spearman"] > 0.6


def test_eval_on_data_without_problem_id_names_the_field(tmp_path):
    write_export(tmp_path / "e")
    model = tmp_path / "model.pkl"
    run_keval("predict", "train", "--data", tmp_path / "e", "--model", model)
    proc = run_keval("predict", "eval", "--data", tmp_path / "e" / "train.parquet", "--model", model, check=False)
    assert proc.returncode != 0 and "field `problem_id`" in proc.stderr


def test_noise_ceiling_is_high_for_a_quiet_retiming_and_lower_for_a_noisy_one(tmp_path):
    write_export(tmp_path / "a", seed=1, noise=0.01)
    write_export(tmp_path / "b", seed=2, noise=0.01)
    write_export(tmp_path / "c", seed=3, noise=0.8)
    quiet = json.loads(run_keval("predict", "noise", "--first", tmp_path / "a", "--second", tmp_path / "b").stdout)
    noisy = json.loads(run_keval("predict", "noise", "--first", tmp_path / "a", "--second", tmp_path / "c").stdout)
    assert quiet["programs_timed_twice"] > 0 and quiet["problems"] == 16
    assert quiet["spearman"] > 0.95 > noisy["spearman"]
