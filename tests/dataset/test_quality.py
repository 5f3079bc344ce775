"""Quality at export: exact and near duplicates, the holdout groups they shape, false
`tampering` dropped with its reason, and label intervals wide enough for a second run."""
import json

from conftest import run_keval
from keval_dataset import near_duplicates, splits
from keval_dataset.export import export

ELEMENTWISE = """import triton
import triton.language as tl

@triton.jit
def _{name}_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, {expr}, mask=mask)

def {name}(x):
    y = torch.empty_like(x)
    _{name}_kernel[(triton.cdiv(x.numel(), {block}),)](x, y, x.numel(), BLOCK={block}, num_warps={warps})
    return y
"""
# distinct programs, one per task: no two share a run of five tokens beyond the imports
DISTINCT = "def t{t}_main(a{t}, b{t}):\n    q{t} = a{t} * {p} - b{t} // 3\n    return [q{t}] * {t}\n"


def record(task, code, p, **extra):
    base = {"task": task, "case": "big", "dtype": "float32", "program": code, "submission_hash": f"{task}-{p}",
            "verdict": "pass", "latency_ms": 1.0 + p, "ci95_low_ms": 0.99 + p, "ci95_high_ms": 1.01 + p,
            "eval_key": f"{task}-{p}", "suite": "keval", "shapes": {"n": 8}, "submission_id": f"{task}@golden#{p}"}
    base.update(extra)
    return base


def corpus(tasks=20, programs=4):
    out = []
    for p in range(programs):
        block, warps = 2 ** (6 + p), 2 ** (p % 3)
        out.append(record("relu", ELEMENTWISE.format(name="relu", expr="tl.maximum(x, 0.0)", block=block, warps=warps), p))
        out.append(record("leaky", ELEMENTWISE.format(name="relu", expr="tl.where(x > 0, x, 0.01 * x)",
                                                      block=block, warps=warps), p))
        for t in range(tasks):
            out.append(record(f"task{t}", DISTINCT.format(t=t, p=p), p))
    return out


def exported(tmp_path, records, name="e", **kwargs):
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    manifest = export(str(path), str(tmp_path / name), "jsonl", kwargs.pop("seed", 17), False, [], **kwargs)
    read = lambda split: [json.loads(line) for line in (tmp_path / name / f"{split}.jsonl").read_text().splitlines()]  # noqa: E731
    return manifest, read


def test_numbers_comments_and_layout_do_not_make_another_program():
    a = ELEMENTWISE.format(name="relu", expr="tl.maximum(x, 0.0)", block=64, warps=4)
    b = ELEMENTWISE.format(name="relu", expr="tl.maximum(x, 0.0)", block=1024, warps=8)
    assert near_duplicates.shape_key(a) == near_duplicates.shape_key(b)
    assert near_duplicates.exact_key(a) != near_duplicates.exact_key(b)
    commented = a.replace("mask = offs < n", "mask = offs < n  # bounds").replace("\n\n", "\n\n\n")
    assert near_duplicates.exact_key(commented) == near_duplicates.exact_key(a)


def test_near_copies_are_found_and_never_cross_the_full_boundary(tmp_path):
    records = corpus()
    held_together = 0
    for seed in range(8):
        manifest, _ = exported(tmp_path, records, name=f"s{seed}", seed=seed)
        report = json.loads((tmp_path / f"s{seed}" / "quality.json").read_text())
        assert ["leaky", "relu"] in report["near_duplicates"]["clusters"]
        assert [p["tasks"] for p in report["near_duplicates"]["task_pairs"]] == [["leaky", "relu"]]
        assert report["near_duplicates"]["pairs_crossing_full"] == []
        full = manifest["holdout_tasks"]["full"]
        assert ("relu" in full) == ("leaky" in full)
        held_together += "relu" in full
    assert held_together, "some seed holds the pair out, together"


def test_groups_stop_at_their_share_and_partial_groups_keep_rows_on_both_sides(tmp_path):
    manifest, read = exported(tmp_path, corpus(tasks=40, programs=6))
    report = json.loads((tmp_path / "e" / "quality.json").read_text())
    for group in ("ninety", "half"):
        for task in manifest["holdout_tasks"][group]:
            assert [r for r in read("test") if r["task"] == task] and [r for r in read("train") if r["task"] == task]
    assert report["holdout_groups"]["full"]["tasks"] >= 5  # 10% of 42, rounded up
    assert set(report["holdout_groups"]["full"]) >= {"problems", "rows", "minimum_problems", "minimum_met"}
    assert splits.programs_in_test("ninety", "t", ["a", "b"]) in ({"a"}, {"b"})
    assert splits.programs_in_test("half", "t", ["a"]) == {"a"}


def test_false_tampering_and_exact_duplicates_are_dropped_with_their_reason(tmp_path):
    records = corpus(tasks=4, programs=2)
    sync = "case big float32 seed 1: host time to a device-wide sync (0.4 ms) far exceeds the CUDA event time"
    records.append(record("task0", DISTINCT.format(t=0, p=7), 7, verdict="tampering", reasons=[sync]))
    records.append(record("task1", DISTINCT.format(t=1, p=7), 7, verdict="tampering", reasons=["wrote outside its output"]))
    records.append(record("task2", DISTINCT.format(t=2, p=7), 8, verdict="tampering", reasons=[sync],
                          submission_id="someone-else"))
    copy = DISTINCT.format(t=3, p=0).replace("\n", "  # again\n", 1)
    records.append(record("task3", copy, 9))
    manifest, read = exported(tmp_path, records)
    dropped = read("dropped")
    reasons = {r["submission_id"]: r["drop_reason"] for r in dropped}
    assert reasons["task0@golden#7"].startswith("false_tampering:")
    assert reasons["task3@golden#9"].startswith("exact_duplicate:")
    assert len(dropped) == 2 and manifest["rows_dropped"] == {"exact_duplicate": 1, "false_tampering": 1}
    kept = {r["submission_id"] for r in read("train") + read("test")}
    assert {"task1@golden#7", "someone-else"} <= kept  # other reasons, or not keval's variant: kept


def test_intervals_cover_a_second_runs_median(tmp_path):
    first = corpus(tasks=6, programs=4)
    exported(tmp_path, [dict(r, latency_ms=r["latency_ms"] * 1.03) for r in first[:12]], name="retime")
    manifest, read = exported(tmp_path, first, retime=str(tmp_path / "retime"))
    rows = read("train") + read("test")
    methods = {r["y_interval"] for r in rows}
    assert methods == {"retimed", "ci95_widened_run_to_run"}
    for r in rows:
        assert r["y_low_ms"] <= r["y"] <= r["y_high_ms"]
        assert r["y_low_ms"] <= r["ci95_low_ms"] and r["ci95_high_ms"] <= r["y_high_ms"]
        if r["y_interval"] == "retimed":
            assert r["y_high_ms"] >= r["y"] * 1.03 - 1e-9  # the second run's median is inside
    intervals = json.loads((tmp_path / "e" / "quality.json").read_text())["intervals"]
    assert intervals["programs_timed_twice"] == 12 and intervals["second_median_inside_ci95"] == 0.0
    assert abs(intervals["spread_factor_k"] - 0.03) < 1e-6
    _, alone = exported(tmp_path, first, name="alone")
    assert {r["y_interval"] for r in alone("train")} == {"ci95_within_run"}


def test_cli_passes_retime_and_threshold_and_names_a_bad_threshold(cpu_run, tmp_path):
    run_keval("dataset", "export", "--from", cpu_run, "--out", tmp_path / "a", "--format", "jsonl")
    run_keval("dataset", "export", "--from", cpu_run, "--out", tmp_path / "b", "--format", "jsonl",
              "--retime", tmp_path / "a", "--near-threshold", "0.9")
    rows = [json.loads(line) for split in ("train", "test") for line in (tmp_path / "b" / f"{split}.jsonl").read_text().splitlines()]
    assert {r["y_interval"] for r in rows if r["y"] is not None} == {"retimed"}
    assert json.loads((tmp_path / "b" / "quality.json").read_text())["near_duplicates"]["threshold"] == 0.9
    bad = run_keval("dataset", "export", "--from", cpu_run, "--out", tmp_path / "c", "--near-threshold", "1.5", check=False)
    assert bad.returncode != 0 and "--near-threshold" in bad.stderr


def test_rebuild_reads_an_export_back_and_gives_the_same_rows(tmp_path):
    from keval_dataset.rebuild import rebuild

    manifest, read = exported(tmp_path, corpus(tasks=6, programs=3))
    rebuilt = rebuild(str(tmp_path / "e"), str(tmp_path / "again"), "jsonl", 17, False)
    again = lambda split: [json.loads(line) for line in (tmp_path / "again" / f"{split}.jsonl").read_text().splitlines()]  # noqa: E731
    key = lambda rows: sorted((r["program_hash"], r["x"], r["y"], r["holdout_group"]) for r in rows)  # noqa: E731
    assert key(again("train")) == key(read("train")) and key(again("test")) == key(read("test"))
    assert rebuilt["holdout_tasks"] == manifest["holdout_tasks"]
