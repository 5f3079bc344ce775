"""scripts/check-commit-subjects.sh on a temporary git repository: which commits it checks
(after a base, after origin/main's merge-base, else the last N) and what a subject must be."""
import hashlib
import os
import pathlib
import subprocess

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check-commit-subjects.sh"


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def commit(repo, subject):
    """Commits a new file under docs/ with this subject (no two commits conflict when
    merged); returns its hash."""
    note = repo / "docs" / f"note-{hashlib.sha256(subject.encode()).hexdigest()[:12]}.md"
    note.write_text(subject + "\n")
    git(repo, "add", str(note.relative_to(repo)))
    git(repo, "commit", "-q", "-m", subject)
    return git(repo, "rev-parse", "HEAD")


def check(repo, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("KEVAL_COMMIT_")}
    clean.update(env)
    return subprocess.run(["bash", str(SCRIPT), str(repo)], capture_output=True, text=True,
                          env=clean, timeout=60)


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    for folder in ("docs", "src/engine", "runner/keval_runner", "tests/e2e"):
        (repo / folder).mkdir(parents=True)
        (repo / folder / ".keep").write_text("")
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "a first commit written before the rule, with no area at all")
    return repo


def test_good_subjects_pass(repo):
    base = git(repo, "rev-parse", "HEAD")
    for subject in ("docs: the map", "engine: a slot", "keval_runner: guest", "e2e: a run",
                    "ci: the check", "docs, src: both", "docs/cli.md: one page",
                    "runner: " + "x" * 64):
        commit(repo, subject)
    result = check(repo, KEVAL_COMMIT_BASE=base)
    assert result.returncode == 0, result.stderr
    assert "8 new commits" in result.stdout


@pytest.mark.parametrize("subject, problem", [
    ("docs: " + "x" * 67, "73 characters, at most 72"),
    ("Review: a fix", "area 'Review' is not one of"),
    ("docs, history: a log", "area 'history' is not one of"),
    ("the map, without an area", "not 'area: what changed'"),
    ("docs:no space", "not 'area: what changed'"),
])
def test_bad_subject_fails_naming_it(repo, subject, problem):
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, "docs: a good one first")
    bad = commit(repo, subject)
    result = check(repo, KEVAL_COMMIT_BASE=base)
    assert result.returncode == 1
    assert f'{bad[:10]} "{subject}": {problem}' in result.stderr
    assert "1 of 2 new commits" in result.stderr


def test_only_commits_after_the_base_are_checked(repo):
    commit(repo, "an old subject nobody checked")
    base = git(repo, "rev-parse", "HEAD")
    commit(repo, "docs: a new one")
    result = check(repo, KEVAL_COMMIT_BASE=base)
    assert result.returncode == 0, result.stderr
    assert "1 new commits" in result.stdout


def test_origin_main_merge_base_is_the_default_base(repo):
    commit(repo, "an old subject already on main")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    commit(repo, "docs: new on this branch")
    assert check(repo).returncode == 0
    commit(repo, "not an area subject")
    result = check(repo)
    assert result.returncode == 1
    assert "1 of 2 new commits" in result.stderr


def test_without_a_base_the_last_n_commits_are_checked(repo):
    commit(repo, "an old bad subject")
    commit(repo, "docs: one")
    commit(repo, "docs: two")
    assert check(repo, KEVAL_COMMIT_LAST="2").returncode == 0
    result = check(repo, KEVAL_COMMIT_LAST="3")
    assert result.returncode == 1
    assert '"an old bad subject"' in result.stderr


def test_a_base_that_is_no_commit_is_one_line_error(repo):
    result = check(repo, KEVAL_COMMIT_BASE="no-such-rev")
    assert result.returncode == 2
    assert result.stderr.strip() == \
        "check-commit-subjects: KEVAL_COMMIT_BASE=no-such-rev is not a commit here"


def test_merges_are_not_checked(repo):
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "docs: on the side")
    git(repo, "checkout", "-q", "-")
    commit(repo, "docs: on the trunk")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'side' into whatever", "side")
    result = check(repo, KEVAL_COMMIT_BASE=base)
    assert result.returncode == 0, result.stderr
    assert "2 new commits" in result.stdout
