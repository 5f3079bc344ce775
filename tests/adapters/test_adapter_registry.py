"""The adapter registry: every KIND the controller can name has an adapter that implements the
Adapter protocol and gives the verbs the controller calls; every peer package is registered.
Python only (no keval binary, no peer checkout)."""

import argparse
import importlib
import pathlib
import re
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "runner"))

from keval_adapters.common.adapter import CONTROLLER_VERBS, Adapter, Verb  # noqa: E402
from keval_adapters.registry import PACKAGES, adapter_for  # noqa: E402

ADAPTERS_DIR = REPO / "runner" / "keval_adapters"


def controller_kinds() -> set:
    """kKinds in src/suite/adapters/peer_source.cc: the KIND:PATH prefixes keval accepts."""
    source = (REPO / "src" / "suite" / "adapters" / "peer_source.cc").read_text()
    found = re.search(r"kKinds\s*=\s*\{([^}]*)\}", source)
    assert found, "kKinds not found in peer_source.cc"
    return set(re.findall(r'"([^"]+)"', found.group(1)))


def test_the_registry_serves_exactly_the_kinds_the_controller_names():
    assert set(PACKAGES) == controller_kinds()


@pytest.mark.parametrize("kind", sorted(PACKAGES))
def test_every_registered_adapter_implements_the_protocol(kind):
    adapter = adapter_for(kind)
    assert isinstance(adapter, Adapter), f"{kind}: {type(adapter).__name__} lacks `kinds` or `verbs`"
    assert kind in adapter.kinds
    verbs = adapter.verbs(kind)
    missing = [v for v in CONTROLLER_VERBS if v not in verbs]
    assert not missing, f"{kind} has no verb {missing}"
    for name, verb in verbs.items():
        assert isinstance(verb, Verb) and callable(verb.run), f"{kind} {name}"
        parser = argparse.ArgumentParser()
        verb.configure(parser)  # its options build without clashing


def test_every_adapter_lists_only_kinds_registered_to_its_package():
    for kind, package in PACKAGES.items():
        for other in adapter_for(kind).kinds:
            assert PACKAGES.get(other) == package, f"{package} serves {other}, which the registry does not map to it"


def test_every_peer_package_is_registered():
    packages = {p.name for p in ADAPTERS_DIR.iterdir() if (p / "__init__.py").exists()} - {"common", "vendor"}
    assert packages == set(PACKAGES.values())


@pytest.mark.parametrize("package", sorted(set(PACKAGES.values())))
def test_every_peer_names_its_own_package_as_its_tasks_adapter(package):
    """A generated task.toml's `adapter` picks the code its evaluation key follows
    (adapter_code_hash): another peer's name would let this peer's edits reuse stale results."""
    tasks = importlib.import_module(f"keval_adapters.{package}.tasks")
    assert tasks.PEER == package


def test_an_object_without_verbs_is_not_an_adapter():
    class KindsOnly:
        kinds = ("nothing",)

    assert not isinstance(KindsOnly(), Adapter)
