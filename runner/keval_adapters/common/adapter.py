"""The Adapter protocol: what one peer benchmark gives `python -m keval_adapters KIND
VERB ...`, the command line keval's controller calls (src/suite/adapters/peer_source.cc).

A fifth peer is a package beside kernelbench/ whose adapter.py defines `ADAPTER`, an object with
this protocol, plus a line per KIND in ../registry.py and in the controller's list of kinds
(kKinds in peer_source.cc). common/cli.py builds the verbs every peer has.
"""

import argparse
from typing import Callable, NamedTuple, Protocol, runtime_checkable

# The verbs the controller calls: `keval run|validate --suite/--submissions KIND:PATH` and
# `keval compare-judges`. An adapter may add its own (selfcheck, published-times, ...).
CONTROLLER_VERBS = ("suite", "submissions", "compare-judges")


class Verb(NamedTuple):
    configure: Callable[[argparse.ArgumentParser], None]  # adds the verb's options
    run: Callable[[argparse.Namespace], int]  # the exit status; AdapterError for the user's mistakes
    help: str = ""


@runtime_checkable
class Adapter(Protocol):
    """One peer benchmark as native keval tasks and submissions.

    `suite --source CHECKOUT --out DIR [--select X]` writes one task folder per peer task into
    DIR (task.toml, reference.py, golden.py, optionally submission_suffix.py: glue appended to
    every submission); `submissions --source PATH --out OUT.jsonl [--suite CHECKOUT]` writes
    keval's JSONL (task, code, id), unmatched items kept as `(no task: why)`; `compare-judges`
    runs the peer's own criterion beside keval's verdicts (docs/peers.md). On failure a verb
    exits non-zero with a one-line reason as its last stderr line."""

    kinds: tuple  # the KIND names it serves, as the controller spells them ("kernelbench")

    def verbs(self, kind: str) -> dict:
        """Verb name -> Verb for one of `kinds`: CONTROLLER_VERBS and any of its own."""
