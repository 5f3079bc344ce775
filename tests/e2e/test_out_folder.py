"""The --out folder: what a run into one that holds results keeps, and the faults of the folder
itself (a file, a read-only or full disk), which are never verdicts."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import REPO, read_results, run_keval

GOLDEN = {task: (REPO / "suites" / "keval" / task / "golden.py").read_text()
          for task in ("relu", "vector_add")}
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None,
                               reason="mounts a tmpfs (CI runs as root)")


def write_submissions(path, tasks):
    path.write_text("".join(json.dumps({"task": t, "code": GOLDEN[t], "id": f"golden-{t}"}) + "\n"
                            for t in tasks))
    return path


def keval_run(subs, out, *more, check=True):
    return run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", out,
                     "--device", "cpu", "--no-timing", *more, check=check)


def test_a_tasks_run_keeps_the_folders_other_results(tmp_path):
    subs = write_submissions(tmp_path / "s.jsonl", ["relu", "vector_add"])
    out = tmp_path / "o"
    keval_run(subs, out, "--tasks", "relu")
    proc = keval_run(subs, out, "--tasks", "vector_add")
    assert "kept 1 earlier result(s)" in proc.stdout
    by_task = {r["task"]: r["verdict"] for r in read_results(out)}
    assert by_task == {"relu": "pass", "vector_add": "pass"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == 2 and summary["verdict_counts"]["pass"] == 2


def test_out_naming_a_file_fails_with_one_line(tmp_path):
    subs = write_submissions(tmp_path / "s.jsonl", ["relu"])
    a_file = tmp_path / "taken"
    a_file.write_text("x")
    for out, why in ((a_file, "is a file, not a folder"), (a_file / "run", f"{a_file} is a file")):
        proc = keval_run(subs, out, check=False)
        assert proc.returncode != 0
        assert proc.stderr.strip() == f"keval: --out {out}: cannot be made: {why}" or \
            proc.stderr.strip() == f"keval: --out {out}: {why}", proc.stderr
        assert "filesystem error" not in proc.stderr


@pytest.fixture
def tmpfs(tmp_path):
    """A mount point for a tmpfs the test mounts; unmounted afterwards."""
    point = tmp_path / "mnt"
    point.mkdir()
    yield point
    subprocess.run(["umount", str(point)], check=False)


def mount_tmpfs(point, options):
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], check=True)


@ROOT_ONLY
def test_out_under_a_read_only_folder_fails_with_one_line(tmp_path, tmpfs):
    mount_tmpfs(tmpfs, "size=1M,ro")
    subs = write_submissions(tmp_path / "s.jsonl", ["relu"])
    proc = keval_run(subs, tmpfs / "run", check=False)
    assert proc.returncode != 0
    assert proc.stderr.strip() == f"keval: --out {tmpfs / 'run'}: cannot be made in {tmpfs}: Read-only file system", proc.stderr


@ROOT_ONLY
def test_outputs_a_full_disk_refused_are_unjudged_and_judged_again_later(tmp_path):
    """The job folders (OUT/work without the sandbox) on a 64 KiB tmpfs: the job's files fit,
    the 80 KB outputs of vector_add's tail_20011 case do not."""
    subs = write_submissions(tmp_path / "s.jsonl", ["vector_add"])
    out = tmp_path / "o"
    (out / "work").mkdir(parents=True)
    mount_tmpfs(out / "work", "size=64k")
    try:
        proc = keval_run(subs, out, "--no-sandbox", check=False)
    finally:
        subprocess.run(["umount", str(out / "work")], check=False)
    assert proc.returncode == 1, proc.stderr
    assert "harness error: the candidate job could not save outputs in keval's work folder" in proc.stderr
    assert "No space left on device" in proc.stderr and "Traceback" not in proc.stderr
    assert read_results(out) == []
    summary = json.loads((out / "summary.json").read_text())
    assert [e["id"] for e in summary["harness_errors"]] == ["golden-vector_add"]
    # space again: nothing was stored, so the same command judges it
    again = keval_run(subs, out, "--no-sandbox")
    assert "reused 0 stored result(s)" in again.stdout
    assert [r["verdict"] for r in read_results(out)] == ["pass"]
