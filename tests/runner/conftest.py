"""pytest fixtures for the runner tests (helpers live in runner_harness.py)."""

import pytest

from runner_harness import Jobs, RunnerProcess


@pytest.fixture(scope="session")
def runner():
    process = RunnerProcess()
    yield process
    assert process.bad_lines == [], f"non-JSON lines on the protocol stream: {process.bad_lines[:3]}"
    assert process.off_schema == [], f"messages off the protocol's schema: {process.off_schema[:3]}"
    process.close()


@pytest.fixture
def fresh_runner():
    process = RunnerProcess()
    yield process
    assert process.off_schema == [], f"messages off the protocol's schema: {process.off_schema[:3]}"
    process.close()


@pytest.fixture
def jobs(tmp_path):
    return Jobs(tmp_path)
