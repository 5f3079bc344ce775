"""pytest fixtures for the runner tests (helpers live in runner_harness.py)."""

import pytest

from runner_harness import Jobs, RunnerProcess


@pytest.fixture(scope="session")
def runner():
    process = RunnerProcess()
    yield process
    assert process.bad_lines == [], f"non-JSON lines on the protocol stream: {process.bad_lines[:3]}"
    process.close()


@pytest.fixture
def fresh_runner():
    process = RunnerProcess()
    yield process
    process.close()


@pytest.fixture
def jobs(tmp_path):
    return Jobs(tmp_path)
