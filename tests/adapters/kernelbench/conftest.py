"""Fixtures every KernelBench/KernelBenchX adapter test module uses: a shared folder (jobs run
under other uids, so not pytest's private tmp_path) and the environment keval runs with."""

import os

import pytest

from kb_harness import make_env, remove, shared_folder


@pytest.fixture(scope="module")
def shared():
    path = shared_folder()
    yield path
    remove(path)


@pytest.fixture(scope="module")
def env(shared):
    return make_env(os.path.join(shared, "cache"))
