"""The contract of a peer's submission matcher: one submission item to one task."""

from typing import NamedTuple, Optional, Protocol


class Match(NamedTuple):
    task: Optional[str]  # None: the item matches no task
    how: str  # how it was matched ("task", "instruction", ...), else why it was not


class Matcher(Protocol):
    def match(self, item: dict) -> Match:
        """The task of one submission item (a JSONL object, or the stand-in a peer makes for a
        .py file), by the peer's own keys, never by a guess."""
