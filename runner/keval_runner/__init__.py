"""keval's runner: the Python side of the controller <-> runner protocol (docs/runner-protocol.md).

Its top starts the process tree (__main__.py, seed.py, zygote.py); everything else sits in a
subpackage per concept (docs/architecture.md)."""
