"""The predictor's feature cache built by `compile-cache` as a borrowed GPU machine builds it
(scripts/device-compile-cache.sh, real dry launches and real sm_90 compilations of tiny
vector_add kernels, 2 workers): each distinct kernel once, stamped with its Triton, nothing
redone, stopped cleanly by its deadline, and never mixed with another Triton's kernels."""
import json
import math
import os
import shutil
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import REPO
from keval_dataset.compile_table import unit
from keval_dataset.dry_launch import TaskInputs, launches
from keval_dataset.launch_features import main_launch

GOLDEN = (REPO / "suites/keval/vector_add/golden.py").read_text()
SMALLER = {block: GOLDEN.replace("BLOCK = 2048", f"BLOCK = {block}").replace("num_warps=8", "num_warps=4")
           for block in (512, 1024)}
# loads (so hangs) in the compiling child only: its dry launch runs in another module's child
HANGS_WHEN_COMPILED = ("import sys, time\nif sys.argv[0].endswith('compile_table.py'):\n    time.sleep(600)\n"
                       + SMALLER[512])
CASE, DTYPE = "large_2p27", "float16"


def row(code, name):
    return {"x": code, "suite": "keval", "task": "vector_add", "case": CASE, "dtype": DTYPE,
            "submission_id": name, "keval_problem": f"vector_add/{CASE}/{DTYPE}", "y": 1.0}


def write_rows_file(folder, codes):
    """An export (Parquet, as the dataset is) and compile-rows' JSON lines of it."""
    export = folder / "export"
    export.mkdir()
    named = [row(code, name) for name, code in codes.items()]
    pq.write_table(pa.Table.from_pylist(named), export / "train.parquet")
    pq.write_table(pa.Table.from_pylist(named[-1:]), export / "test.parquet")  # one program in both splits
    dataset_tool("compile-rows", "--data", export, "--out", folder / "rows.jsonl")
    return folder / "rows.jsonl"


def dataset_tool(*args, check=True, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(REPO / "runner"))
    proc = subprocess.run([sys.executable, "-m", "keval_dataset", *map(str, args)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def device_script(rows_file, out, deadline_s, timeout=400, tmp=None):
    env = dict(os.environ, OUT=str(out), KEVAL_PYTHON=sys.executable, WORKERS="2", DEADLINE_S=str(deadline_s))
    if tmp:
        env["TMPDIR"] = str(tmp)  # where the children's job files are: their command lines name it
    proc = subprocess.run(["bash", "scripts/device-compile-cache.sh", str(rows_file)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def children_under(folder):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if str(folder).encode() in f.read():
                    found.append(pid)
        except OSError:
            pass  # gone meanwhile
    return found


def unit_of(code):
    found, why = launches(code, TaskInputs(str(REPO / "suites/keval/vector_add")), CASE, DTYPE)
    assert why is None
    return unit(main_launch([launch.as_dict() for launch in found]))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compile-cache")
    rows_file = write_rows_file(folder, {"vector_add@golden#as_is": GOLDEN, "v512": SMALLER[512],
                                         "v1024": SMALLER[1024]})
    summary = device_script(rows_file, folder / "out", deadline_s=300)
    return rows_file, folder / "out" / "features", summary


@pytest.mark.timeout(420)
def test_the_cache_holds_each_distinct_kernel_once_stamped_and_a_second_run_compiles_nothing(built):
    import triton

    rows_file, features, summary = built
    expected = {unit_of(code) for code in (GOLDEN, SMALLER[512], SMALLER[1024])}
    assert len(expected) == 3 and summary["kernels"] == 3 and summary["complete"] is True, summary
    assert summary["outcomes"] == {"compiled": 3}, summary
    compiled = lines(features / "compiled.jsonl")
    assert {line["key"] for line in compiled} == expected and len(compiled) == 3
    for line in compiled:
        assert line["why"] is None and line["registers"] > 0 and line["ptx_global_loads"] > 0
        assert line["triton"] == triton.__version__ and line["target"] == "cuda:90:32"
    before = {name: (features / name).read_bytes() for name in ("compiled.jsonl", "launches.jsonl")}
    again = json.loads(dataset_tool("compile-cache", "--data", rows_file, "--out", features, "--workers", "2").stdout)
    assert again["compiled_now"] == 0 and again["complete"] is True and again["seconds"] < 30, again
    assert {name: (features / name).read_bytes() for name in before} == before


@pytest.mark.timeout(300)
def test_a_deadline_shorter_than_the_work_stops_cleanly_with_a_partial_cache(tmp_path):
    rows_file = write_rows_file(tmp_path, {"vector_add@golden#as_is": GOLDEN, "hangs": HANGS_WHEN_COMPILED})
    out = tmp_path / "out"
    started = time.monotonic()
    # the hanging compilation's own deadline (10 s after its child's 60 s start-up grace) is later
    (tmp_path / "tmp").mkdir()
    summary = device_script(rows_file, out, deadline_s=60, tmp=tmp_path / "tmp")
    assert time.monotonic() - started < 80, summary
    assert not children_under(tmp_path / "tmp")  # the hanging child was stopped, not left behind
    assert summary["complete"] is False and summary["left"] == 1 and summary["kernels"] == 2, summary
    compiled = lines(out / "features" / "compiled.jsonl")
    assert [line["key"] for line in compiled] == [unit_of(GOLDEN)]  # not the hanging one, not as a timeout
    assert all(line["why"] is None for line in compiled + lines(out / "features" / "launches.jsonl"))
    (tmp_path / "again").mkdir()
    golden_only = write_rows_file(tmp_path / "again", {"vector_add@golden#as_is": GOLDEN})
    resumed = json.loads(dataset_tool("compile-cache", "--data", golden_only, "--out", out / "features").stdout)
    assert resumed["complete"] is True and resumed["compiled_now"] == 0, resumed


@pytest.mark.timeout(300)
def test_a_cache_of_another_triton_is_refused_for_building_and_read_as_it_is(built, tmp_path):
    from keval_dataset.feature_table import feature_matrix

    rows_file, features, _ = built
    foreign = tmp_path / "features"
    shutil.copytree(features, foreign)
    kept = [dict(line, triton="0.0-other") for line in lines(foreign / "compiled.jsonl")][:2]
    (foreign / "compiled.jsonl").write_text("".join(json.dumps(line) + "\n" for line in kept))
    before = (foreign / "compiled.jsonl").read_bytes()
    refused = dataset_tool("compile-cache", "--data", rows_file, "--out", foreign, check=False)
    assert refused.returncode == 2 and "Triton 0.0-other for cuda:90:32" in refused.stderr, refused.stderr
    rows = [json.loads(line) for line in rows_file.read_text().splitlines()]
    X, names = feature_matrix(rows, ["p"] * len(rows), cache=str(foreign), compiled=True, within=False)
    registers = {unit_of(r["x"]): X[i][names.index("compiled_registers")] for i, r in enumerate(rows)}
    assert {line["key"]: registers[line["key"]] for line in kept} == {line["key"]: line["registers"] for line in kept}
    assert sum(math.isnan(v) for v in registers.values()) == 1  # the kernel it lacks: not compiled here
    assert (foreign / "compiled.jsonl").read_bytes() == before
