"""A run's folder that the user cannot write (another user's run, a read-only mount): keval report,
keval compare and keval merge read it, keval rejudge writes elsewhere (--into) or says in one
line that it must, and nothing in the folder changes. The other user is `nobody`, through
setpriv: the test needs root."""
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import KEVAL, REPO, run_keval

NOBODY = 65534


def as_nobody(home, *args):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "MPLCONFIGDIR": str(home)}
    if "KEVAL_PYTHON" in os.environ:
        env["KEVAL_PYTHON"] = os.environ["KEVAL_PYTHON"]
    return subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", KEVAL,
                           *map(str, args)], cwd=home, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def others_run():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to act as another user")
    # not under pytest's tmp folder: that one is private to root
    root = tempfile.mkdtemp(prefix="keval-read-only-")
    os.chmod(root, 0o755)
    try:
        subs = os.path.join(root, "subs.jsonl")
        with open(REPO / "examples" / "submissions.jsonl") as examples, open(subs, "w") as out:
            out.writelines(line for line in examples if '"relu_correct"' in line)
        run = os.path.join(root, "run")
        run_keval("run", "--suite", "suites/keval", "--tasks", "relu", "--submissions", subs, "--out", run,
                  "--device", "cpu", "--no-timing", "--quiet")
        home = os.path.join(root, "nobody")
        os.mkdir(home)
        os.chown(home, NOBODY, NOBODY)
        if as_nobody(home, "--version").returncode != 0:
            pytest.skip(f"{KEVAL} cannot be run by another user here")
        yield run, home
    finally:
        shutil.rmtree(root, ignore_errors=True)


def listing(folder):
    return sorted((p, os.stat(os.path.join(folder, p)).st_mtime_ns) for p in os.listdir(folder))


def test_report_reads_a_folder_it_cannot_write(others_run):
    run, home = others_run
    before = listing(run)
    proc = as_nobody(home, "report", run, "--out", os.path.join(home, "report.html"))
    assert proc.returncode == 0, proc.stderr  # was: attempt to write a readonly database
    assert os.path.getsize(os.path.join(home, "report.html")) > 0
    assert listing(run) == before


def test_rejudge_writes_elsewhere_or_says_it_must(others_run):
    run, home = others_run
    before = listing(run)
    proc = as_nobody(home, "rejudge", run, "--tolerance-scale", "2", "--quiet")
    assert proc.returncode != 0
    assert len(proc.stderr.strip().splitlines()) == 1 and "--into" in proc.stderr, proc.stderr
    into = os.path.join(home, "rejudged")
    proc = as_nobody(home, "rejudge", run, "--tolerance-scale", "2", "--quiet", "--into", into)
    assert proc.returncode == 0, proc.stderr
    assert os.path.getsize(os.path.join(into, "results.jsonl")) > 0
    assert listing(run) == before


def test_merge_reads_a_folder_it_cannot_write(others_run):
    run, home = others_run
    before = listing(run)
    merged = os.path.join(home, "merged")
    proc = as_nobody(home, "merge", run, "--out", merged)
    assert proc.returncode == 0, proc.stderr  # was: attempt to write a readonly database
    assert os.path.getsize(os.path.join(merged, "results.jsonl")) > 0
    assert listing(run) == before


def every_file(folder):
    return sorted((os.path.relpath(os.path.join(d, n), folder), os.lstat(os.path.join(d, n)).st_mtime_ns)
                  for d, dirs, files in os.walk(folder) for n in dirs + files)


def test_compare_reads_a_folder_it_cannot_write(others_run):
    run, home = others_run
    before = every_file(run)
    into = os.path.join(home, "comparison.json")
    proc = as_nobody(home, "compare", run, os.path.join(run, "results.jsonl"), "--json", into)
    assert proc.returncode == 0, proc.stderr
    assert "relu" in proc.stdout and os.path.getsize(into) > 0, proc.stdout
    assert every_file(run) == before
