"""An export loads the usual ways (docs/dataset.md, "Loading"): one schema for train and test,
a Hugging Face card whose configs name each split's file (a nested `retime/` export its own
config), and no path of the exporting machine in any column."""
import importlib.util
import json
import re

import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import card_yaml
from keval_dataset import schema
from keval_dataset.card import MARK
from keval_dataset.export import export
from standalone import write_records

PATH_REASON = "runtime_error: File \"/srv/exporting-machine/keval/runner/keval_runner/child.py\", line 9"


def records(run: str, tasks=12, programs=6):
    """Fake tasks (no reference: code_only rows) with a machine path in a store and a reason;
    only task0 has a GPU clock, so a column is all null in at least one split."""
    for t in range(tasks):
        for p in range(programs):
            failed = p == 0
            yield {"task": f"task{t}", "case": "a", "dtype": "float32", "program": f"def task{t}_code():\n    return {p}\n",
                   "submission_hash": f"{run}-h{t}-{p}", "eval_key": f"{run}-k{t}-{p}", "suite": "keval",
                   "shapes": {"n": 8}, "verdict": "runtime_error" if failed else "pass",
                   "latency_ms": None if failed else 1.0 + p, "reasons": [PATH_REASON] if failed else [],
                   "sm_clock_mhz": 1980 if t == 0 else None, "source_db": f"/srv/exporting-machine/runs/{run}/keval.db",
                   "run_id": 1, "sample_count": 10}


def make_export(tmp_path, name="ds", run="first", fmt="parquet"):
    out = tmp_path / name
    export(write_records(tmp_path / f"{run}.jsonl", records(run)), str(out), fmt, 17, False,
           [f"/srv/exporting-machine/runs/{run}/keval.db"])
    return out


def card_metadata(folder) -> dict:
    metadata = card_yaml.parse(card_yaml.header_of((folder / "README.md").read_text()))
    if importlib.util.find_spec("yaml"):
        import yaml
        assert yaml.safe_load(card_yaml.header_of((folder / "README.md").read_text())) == metadata
    return metadata


def test_train_and_test_share_one_schema_and_load_as_one_table(tmp_path):
    out = make_export(tmp_path)
    train, test = pq.read_schema(out / "train.parquet"), pq.read_schema(out / "test.parquet")
    assert train.names == schema.NAMES and train.equals(test, check_metadata=False)
    table = pads.dataset([str(out / "train.parquet"), str(out / "test.parquet")], format="parquet").to_table()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["test_rows"] > 0 and table.num_rows == manifest["train_rows"] + manifest["test_rows"]
    rows = pq.read_table(out / "train.parquet").to_pylist()
    assert all(r["problem_id"] is None and r["holdout_group"] is None for r in rows)
    assert {r["holdout_group"] for r in pq.read_table(out / "test.parquet").to_pylist()} <= {"full", "ninety", "half"}


def test_no_machine_path_in_any_column_or_the_manifest(tmp_path):
    out = make_export(tmp_path)
    absolute = re.compile(r"(?<![\w:/.~-])/(?:[\w.+@-]+/){2,}")
    for split in ("train", "test"):
        for row in pq.read_table(out / f"{split}.parquet").to_pylist():
            assert row["source_db"] == "first/keval.db"
            for column, value in row.items():
                assert not (isinstance(value, str) and absolute.search(value)), (column, value)
            if row["verdict"] == "runtime_error":
                assert ".../keval_runner/child.py" in row["reasons"]
    assert "/srv/" not in (out / "manifest.json").read_text() + (out / "README.md").read_text()
    assert "`source_db` names each store by\n  its run folder and file" in (out / "README.md").read_text()


def test_the_card_names_each_config_and_a_nested_retime_export_is_its_own(tmp_path):
    out = make_export(tmp_path)
    make_export(out, name="retime", run="second")
    metadata = card_metadata(out)
    files = {c["config_name"]: {f["split"]: f["path"] for f in c["data_files"]} for c in metadata["configs"]}
    assert files == {"default": {"train": "train.parquet", "test": "test.parquet"},
                     "retime": {"train": "retime/train.parquet", "test": "retime/test.parquet"}}
    for info in metadata["dataset_info"]:
        features = [(f["name"], f["dtype"]) for f in info["features"]]
        counts = {s["name"]: s["num_examples"] for s in info["splits"]}
        for split, path in files[info["config_name"]].items():
            table = pq.read_table(out / path)
            assert [(f.name, str(f.type).replace("double", "float64")) for f in table.schema] == features
            assert table.num_rows == counts[split]
            runs = {r["source_db"] for r in table.to_pylist()}
            assert runs == {"second/keval.db" if info["config_name"] == "retime" else "first/keval.db"}
    assert card_metadata(out / "retime")["configs"][0]["data_files"][0]["path"] == "train.parquet"


def test_a_card_keval_did_not_write_is_left_alone(tmp_path):
    out = tmp_path / "ds"
    out.mkdir()
    (out / "README.md").write_text("# my own card\n")
    make_export(tmp_path)
    assert (out / "README.md").read_text() == "# my own card\n"
    jsonl = make_export(tmp_path, name="as_jsonl", fmt="jsonl")
    text = (jsonl / "README.md").read_text()
    assert MARK in text and "path: train.jsonl" in text


@pytest.mark.skipif(not importlib.util.find_spec("pandas"), reason="pandas is not installed")
def test_pandas_reads_each_split(tmp_path):
    import pandas as pd

    out = make_export(tmp_path)
    frames = [pd.read_parquet(out / f"{split}.parquet") for split in ("train", "test")]
    assert list(frames[0].columns) == list(frames[1].columns) == schema.NAMES


@pytest.mark.skipif(not importlib.util.find_spec("datasets"), reason="datasets is not installed")
def test_datasets_loads_each_config(tmp_path, monkeypatch):
    import datasets

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    out = make_export(tmp_path)
    make_export(out, name="retime", run="second")
    files = {"train": str(out / "train.parquet"), "test": str(out / "test.parquet")}
    by_files = datasets.load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "cache"))
    default = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    retime = datasets.load_dataset(str(out), "retime", cache_dir=str(tmp_path / "cache"))
    manifest = json.loads((out / "manifest.json").read_text())
    for loaded in (by_files, default):
        assert loaded["train"].num_rows == manifest["train_rows"] and loaded["test"].num_rows == manifest["test_rows"]
    assert set(retime["train"]["source_db"]) == {"second/keval.db"}
