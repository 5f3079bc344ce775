"""Which adapter serves each KIND the controller names (kKinds in src/suite/adapters/peer_source.cc),
declared as data: a peer's package is imported only when its KIND is asked for, so one adapter's
missing dependency never breaks another."""

import importlib

# KIND -> the package beside this file whose adapter.py defines ADAPTER (common/adapter.py).
PACKAGES = {
    "tritonbench-g": "tritonbench",
    "tritonbench-t": "tritonbench",
    "kernelbench": "kernelbench",
    "kernelbenchx": "kernelbenchx",
}


def adapter_for(kind: str):
    """The Adapter of one KIND of PACKAGES."""
    return importlib.import_module(f"{__package__}.{PACKAGES[kind]}.adapter").ADAPTER
