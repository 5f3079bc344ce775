"""keval's runner: the Python side of the controller <-> runner protocol (docs/runner-protocol.md)."""
