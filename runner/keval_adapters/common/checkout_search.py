"""Finding the peer checkout a submissions file belongs to, when --suite does not name it."""

import os

from .errors import AdapterError


def find_checkout(submissions: str, suite, is_checkout, missing: str = None) -> str:
    """`suite` when given, else the nearest folder above `submissions` for which
    is_checkout(folder) is true. Without one: AdapterError("SUBMISSIONS: missing") when
    `missing` says what to do, else None."""
    if suite:
        return suite
    folder = os.path.dirname(os.path.abspath(submissions))
    while True:
        if is_checkout(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            if missing:
                raise AdapterError(f"{submissions}: {missing}")
            return None
        folder = parent
