"""pytest fixtures for the runner tests (helpers live in runner_harness.py)."""

import pytest

from runner_harness import Jobs, RunnerProcess, RunnerSeed


@pytest.fixture(scope="session")
def runner_seed():
    """One seed for the session's fresh runners, as a keval run has one for its slots."""
    seed = RunnerSeed()
    yield seed
    seed.close()


def _checked(process, every_line_json):
    yield process
    if every_line_json:
        assert process.bad_lines == [], f"non-JSON lines on the protocol stream: {process.bad_lines[:3]}"
    assert process.off_schema == [], f"messages off the protocol's schema: {process.off_schema[:3]}"
    process.close()


@pytest.fixture(scope="session")
def runner(runner_seed):
    yield from _checked(RunnerProcess(seed=runner_seed), every_line_json=True)


@pytest.fixture
def fresh_runner(runner_seed):
    yield from _checked(RunnerProcess(seed=runner_seed), every_line_json=False)


@pytest.fixture
def exec_runner():
    """A zygote exec'd on its own (no seed), as --fresh-process and a failed seed have it."""
    yield from _checked(RunnerProcess(), every_line_json=False)


@pytest.fixture
def jobs(tmp_path):
    return Jobs(tmp_path)
