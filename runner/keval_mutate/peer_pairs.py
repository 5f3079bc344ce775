"""The reviewed table of which keval task is which peer task (peer_pairs.toml): each pair with
the reason the two agree and the glue that makes a mutant of keval's golden a submission of the
peer's task."""
import ast
import os
import tomllib
from typing import NamedTuple

from .errors import MutateError

DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer_pairs.toml")

# compare-judges KINDs whose criterion peer-kills runs, and the label of each in the table
PEERS = {"tritonbench-t": "TritonBench-T", "kernelbench": "KernelBench", "kernelbenchx": "KernelBenchX"}
FIELDS = ("task", "peer", "peer_task", "reason", "glue")


class PeerPair(NamedTuple):
    task: str
    peer: str
    peer_task: str
    reason: str
    glue: str

    def submission(self, code: str) -> str:
        """A mutant's (or the golden's) code as the peer's submission: the code, then the glue."""
        return code.rstrip("\n") + "\n\n" + self.glue


def load_pairs(path: str = DEFAULT) -> list:
    try:
        with open(path, "rb") as f:
            table = tomllib.load(f)
    except OSError as exc:
        raise MutateError(path, f"cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise MutateError(path, f"not TOML: {exc}") from None
    pairs, seen = [], set()
    for number, entry in enumerate(table.get("pair", []), 1):
        where = f"{path}: pair {number}"
        missing = [k for k in FIELDS if not isinstance(entry.get(k), str) or not entry[k].strip()]
        if missing or set(entry) - set(FIELDS):
            raise MutateError(where, f"needs exactly the fields {', '.join(FIELDS)} (missing or empty: "
                                     f"{', '.join(missing) or 'none'}; unknown: {', '.join(sorted(set(entry) - set(FIELDS))) or 'none'})")
        pair = PeerPair(**{k: entry[k] for k in FIELDS})
        if pair.peer not in PEERS:
            raise MutateError(where, f"unknown peer {pair.peer!r} (known: {', '.join(PEERS)})")
        if (pair.task, pair.peer) in seen:
            raise MutateError(where, f"{pair.task} is paired with {pair.peer} twice")
        seen.add((pair.task, pair.peer))
        try:
            ast.parse(pair.glue)
        except SyntaxError as exc:
            raise MutateError(where, f"the glue does not parse (its line {exc.lineno}): {exc.msg}") from None
        pairs.append(pair)
    return pairs
