"""Which Triton compiled a compiled-kernel cache (compile_table.py), and for which target.

Every line of the cache carries both, and a cache holds one Triton's kernels only: the same
kernel compiled by another Triton can have other registers, spills and op counts. A cache
built by another Triton (a borrowed GPU machine's, the one the dataset was timed with) is read
as it is, and nothing is added to it here; one whose lines differ, or carry no stamp (written
before stamps were), is refused where kernels would be added to it.
"""

from .compiled_kernel import TARGET
from .errors import DatasetError


def current() -> dict:
    import triton

    return {"triton": triton.__version__, "target": ":".join(str(part) for part in TARGET)}


def describe(stamp: dict) -> str:
    return f"Triton {stamp.get('triton') or 'unknown (no stamp)'} for {stamp.get('target') or 'an unknown target'}"


def of_cache(items: dict, path) -> dict:
    """The stamp of a cache's items (read_cache's dict); None when it is empty."""
    stamps = {(item.get("triton"), item.get("target")) for item in items.values()}
    if len(stamps) > 1:
        named = "; ".join(sorted(describe({"triton": t, "target": g}) for t, g in stamps))
        raise DatasetError(path, f"kernels compiled by several Tritons ({named}): build a new cache")
    return dict(zip(("triton", "target"), stamps.pop())) if stamps else None


def require_current(items: dict, path) -> dict:
    """The current stamp, after checking that the cache holds nothing compiled by another."""
    mine, theirs = current(), of_cache(items, path)
    if theirs not in (None, mine):
        raise DatasetError(path, f"compiled by {describe(theirs)}, this is {describe(mine)}: kernels of two "
                                 "Tritons are not mixed; build into another folder, or on a machine with that Triton")
    return mine
