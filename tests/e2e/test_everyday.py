"""Everyday use: a harness that never blames a submission for its own faults (two runs into one
--out, a non-root user after root, a cache it cannot use), --rerun, and the command line as a
new user meets it (exit status 1 with a `keval:` line, near names, ids, `# task:` headers)."""
import json
import os
import pathlib
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import KEVAL, REPO, read_results, run_keval

GOLDEN_RELU = (REPO / "suites" / "keval" / "relu" / "golden.py").read_text()
PYTHON = os.environ.get("KEVAL_PYTHON") or sys.executable
THROWAWAY_USER = "keval-e2e-user"
SBIN_PATH = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"


def sbin(tool: str) -> str:
    found = shutil.which(tool, path=SBIN_PATH)
    assert found, f"{tool} is missing (Debian: util-linux, passwd)"
    return found


def relu_submissions(path: pathlib.Path, ids=("relu_golden",)) -> pathlib.Path:
    path.write_text("".join(json.dumps({"task": "relu", "code": GOLDEN_RELU, "id": i}) + "\n" for i in ids))
    return path


def evaluations_in(out: pathlib.Path) -> int:
    with sqlite3.connect(out / "keval.db") as db:
        return db.execute("SELECT count(*) FROM evaluations").fetchone()[0]


def test_a_second_run_into_the_same_out_is_refused_while_the_first_runs(tmp_path):
    subs = relu_submissions(tmp_path / "s.jsonl")
    out = tmp_path / "o"
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    first = subprocess.Popen([KEVAL, "run", "--suite", "suites/keval", "--submissions", subs, "--out", out,
                              "--device", "cpu", "--no-timing"], cwd=REPO, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lock = out / ".keval.lock"
    deadline = time.time() + 60
    while not (lock.exists() and lock.read_text().strip()) and time.time() < deadline:
        time.sleep(0.05)
    second = run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", out, "--device", "cpu",
                       "--no-timing", check=False)
    stdout, stderr = first.communicate(timeout=600)
    assert first.returncode == 0, stdout + stderr
    assert second.returncode == 1
    assert second.stderr.strip() == (f"keval: {out} is in use by another keval run (pid {first.pid}); "
                                     "wait for it to finish or choose another --out")
    assert [r["verdict"] for r in read_results(out)] == ["pass"]
    assert evaluations_in(out) == 1


def test_a_harness_fault_is_not_a_verdict_and_rerun_judges_stored_results_again(tmp_path):
    subs = relu_submissions(tmp_path / "s.jsonl")
    out, cache = tmp_path / "o", tmp_path / "cache"
    cache.mkdir()
    (cache / "triton").write_text("a file where the compile cache's folder must go")
    env_cache = {"KEVAL_CACHE_DIR": str(cache)}
    args = ("run", "--suite", "suites/keval", "--submissions", subs, "--out", out, "--device", "cpu", "--no-timing")

    broken = run_with_env(args, env_cache)
    assert broken.returncode == 1
    assert "keval: not judged: relu_golden (relu): harness error: the candidate job could not set up its sandbox" \
        in broken.stderr
    assert "run again to judge them" in broken.stderr.strip().splitlines()[-1]
    assert read_results(out) == []
    summary = json.loads((out / "summary.json").read_text())
    assert [e["id"] for e in summary["harness_errors"]] == ["relu_golden"] and summary["n"] == 0
    assert evaluations_in(out) == 0  # nothing stored: the next run judges it

    (cache / "triton").unlink()
    fixed = run_with_env(args, env_cache)
    assert fixed.returncode == 0, fixed.stderr
    assert [r["verdict"] for r in read_results(out)] == ["pass"]
    assert "reused 0 stored result(s)" in fixed.stdout

    again = run_with_env(args, env_cache)
    assert "reused 1 stored result(s)" in again.stdout and "--rerun judges them again" in again.stdout
    only_crashes = run_with_env((*args, "--rerun", "crash,timeout"), env_cache)
    assert "reused 1 stored result(s)" in only_crashes.stdout
    everything = run_with_env((*args, "--rerun"), env_cache)
    assert "reused 0 stored result(s)" in everything.stdout
    assert evaluations_in(out) == 1  # the fresh evaluation replaced the stored one
    bad = run_with_env((*args, "--rerun", "crsh"), env_cache)
    assert bad.returncode == 1 and "near: crash" in bad.stderr


def run_with_env(args, extra: dict):
    env = dict(os.environ, **extra)
    env.pop("TRITON_INTERPRET", None)
    return subprocess.run([KEVAL, *map(str, args)], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def throwaway_user() -> int:
    try:
        return pwd.getpwnam(THROWAWAY_USER).pw_uid
    except KeyError:
        subprocess.run([sbin("useradd"), "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", THROWAWAY_USER],
                       check=True)
        return pwd.getpwnam(THROWAWAY_USER).pw_uid


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as a throwaway user (CI runs as root)")
def test_a_non_root_user_after_root_judges_with_a_cache_of_its_own(tmp_path):
    """Root's run leaves root's caches under /var/tmp/keval-cache; another user's run used to
    crash every submission on them (PermissionError). The binary is a copy with its runner
    beside it and the runner's Python recorded in keval.python: no KEVAL_PYTHON is set."""
    uid = throwaway_user()
    probe = subprocess.run([sbin("runuser"), "-u", THROWAWAY_USER, "--", PYTHON, "-c", "import torch, triton"],
                           capture_output=True, text=True)
    assert probe.returncode == 0, f"{PYTHON} must be readable by other users: {probe.stderr[-500:]}"
    root = pathlib.Path(tempfile.mkdtemp(prefix="keval-e2e-", dir="/var/tmp"))
    try:
        os.chmod(root, 0o755)
        (root / "bin").mkdir()
        shutil.copy2(KEVAL, root / "bin" / "keval")
        (root / "bin" / "keval.python").write_text(PYTHON + "\n")
        shutil.copytree(REPO / "runner" / "keval_runner", root / "runner" / "keval_runner")
        shutil.copytree(REPO / "suites" / "keval" / "relu", root / "suite" / "relu")
        subs = relu_submissions(root / "s.jsonl")
        for path in [root, *root.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() or path.name == "keval" else 0o644)
        env = {"PATH": "/usr/bin:/bin", "HOME": "/root"}  # runuser keeps root's HOME
        args = [str(root / "bin" / "keval"), "run", "--suite", str(root / "suite"), "--submissions", str(subs),
                "--device", "cpu", "--no-timing"]
        as_root = subprocess.run([*args, "--out", str(root / "out-root")], env=env, capture_output=True, text=True,
                                 timeout=600)
        assert as_root.returncode == 0, as_root.stderr
        (root / "out-user").mkdir()
        os.chown(root / "out-user", uid, uid)
        as_user = subprocess.run([sbin("runuser"), "-u", THROWAWAY_USER, "--", *args, "--out", str(root / "out-user")],
                                 env=env, capture_output=True, text=True, timeout=600)
        assert as_user.returncode == 0, as_user.stdout + as_user.stderr
        assert [r["verdict"] for r in read_results(root / "out-user")] == ["pass"], as_user.stdout
        summary = json.loads((root / "out-user" / "summary.json").read_text())
        # the interpreter by its file name: the folder it sits in is this machine's
        assert summary["environment"]["python_executable"] == os.path.basename(PYTHON)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_command_line_mistakes_exit_1_with_a_keval_line_and_the_near_name():
    for args, expected in ((["rnu"], 'keval: unknown command "rnu" for keval (did you mean "run"?)'),
                           (["run", "--suit", "x"], 'keval: unknown option --suit for keval run (did you mean "--suite"?)'),
                           (["tasks", "lst"], 'keval: unknown command "lst" for keval tasks (did you mean "list"?)'),
                           (["run", "--suite", "s", "--submissions", "x", "--out", "o", "--device", "gpu"],
                            "keval: --device: gpu not in {auto,cpu,cuda}")):
        proc = run_keval(*args, check=False)
        assert proc.returncode == 1, (args, proc.returncode)
        assert proc.stderr.startswith(expected), proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_help_beside_an_unknown_command_is_that_error_and_help_alone_still_helps():
    for args, expected in ((["NOSUCH", "--help"], 'keval: unknown command "NOSUCH" for keval'),
                           (["tasks", "lst", "-h"], 'keval: unknown command "lst" for keval tasks'),
                           (["run", "--suit", "x", "--help"], "keval: unknown option --suit for keval run")):
        proc = run_keval(*args, check=False)
        assert proc.returncode == 1, (args, proc.returncode, proc.stdout)
        assert proc.stderr.startswith(expected), proc.stderr
        assert proc.stdout == "", proc.stdout  # no help printed as if the command existed
    for args in (["--help"], ["run", "--help"], ["tasks", "show", "--help"], ["dataset", "export", "-h"],
                 ["run", "--suite", "suites/keval", "--help"], ["--version"]):
        proc = run_keval(*args, check=False)
        assert proc.returncode == 0 and proc.stdout.strip(), (args, proc.returncode, proc.stderr)


def test_a_tasks_glob_that_matches_nothing_is_an_error_naming_near_tasks(tmp_path):
    subs = relu_submissions(tmp_path / "s.jsonl")
    proc = run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", tmp_path / "o",
                     "--device", "cpu", "--tasks", "softmx*", check=False)
    assert proc.returncode == 1
    suite = REPO / "suites" / "keval"
    assert proc.stderr.strip().startswith(f'keval: --tasks "softmx*" matches no task of {suite} (near: softmax')
    proc = run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", tmp_path / "o",
                     "--device", "cpu", "--tasks", "softmax", check=False)
    assert proc.returncode == 1 and "matches no submission's task (the submissions are for: relu)" in proc.stderr


def test_a_repeated_id_is_refused_naming_both_lines(tmp_path):
    subs = relu_submissions(tmp_path / "s.jsonl", ids=("same", "other", "same"))
    proc = run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", tmp_path / "o",
                     check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f'keval: {subs}:3: id "same" was already used at {subs}:1; every result is '
                                   'addressed by its id, so ids must differ (leave "id" out to get one made from '
                                   'the code)')


def test_a_folder_submission_is_judged_for_the_task_its_header_names(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "my_first_try.py").write_text("# task: relu\n# why: the golden, under another name\n" + GOLDEN_RELU)
    (folder / "relu.py").write_text(GOLDEN_RELU)
    run_keval("run", "--suite", "suites/keval", "--submissions", folder, "--out", tmp_path / "o", "--device", "cpu",
              "--no-timing")
    results = {r["id"]: (r["task"], r["verdict"]) for r in read_results(tmp_path / "o")}
    assert results == {"my_first_try": ("relu", "pass"), "relu": ("relu", "pass")}


def test_tasks_list_and_show_print_json():
    listed = json.loads(run_keval("tasks", "list", "--suite", "suites/keval", "--json").stdout)
    assert len(listed) >= 12 and {"name", "track", "category", "difficulty", "cases"} <= set(listed[0])
    shown = json.loads(run_keval("tasks", "show", "softmax", "--suite", "suites/keval", "--json").stdout)
    assert shown["name"] == "softmax" and shown["cases"][0]["name"] and "float32" in shown["tolerance"]
    # a case's own tolerance (matvec's outlier case: large terms that cancel)
    matvec = json.loads(run_keval("tasks", "show", "matvec", "--suite", "suites/keval", "--json").stdout)
    outliers = next(c for c in matvec["cases"] if c["name"] == "outliers_300x2000")
    assert outliers["tolerance"]["float32"]["atol"] > matvec["tolerance"]["float32"]["atol"]
    assert "tolerance" not in matvec["cases"][0]
    assert "    tolerance float32: atol 0.003" in run_keval("tasks", "show", "matvec", "--suite", "suites/keval").stdout
