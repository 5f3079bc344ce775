"""No path of the machine that ran or exported an evaluation goes into a published row: a store
is named by its run folder, and absolute paths in verdict reasons (a traceback's files, a
compiler's temporary files) keep only their last two parts."""

import os
import re

# An absolute path: not part of a URL (`https://host/...`) nor of a relative one (`a/b`).
ABSOLUTE_PATH = re.compile(r"(?<![\w:/.~-])/(?:[\w.+@-]+/)+[\w.+@-]*")


def store_name(path: str) -> str:
    """`/var/tmp/ds/sweep/keval.db` -> `sweep/keval.db` (the run folder and the file)."""
    path = os.path.normpath(path)
    return "/".join(p for p in (os.path.basename(os.path.dirname(path)), os.path.basename(path)) if p)


def _short(match) -> str:
    parts = [p for p in match.group(0).split("/") if p]
    return ".../" + "/".join(parts[-2:]) if len(parts) > 2 else match.group(0)


def scrub(text):
    """text with each absolute path of more than two parts shortened to `.../<last two>`."""
    return ABSOLUTE_PATH.sub(_short, text) if isinstance(text, str) else text
