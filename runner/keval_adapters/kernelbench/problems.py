"""A KernelBench checkout: its problem files `KernelBench/level{N}/{id}_{Title}.py`."""

import os
import re

from ..common.errors import AdapterError
from ..common.names import snake

FILE_RE = re.compile(r"^(\d+)_(.+)\.py$")
LEVEL_RE = re.compile(r"^level(\d+)$")


def problems_root(source: str) -> str:
    """The folder holding level1/, level2/...: CHECKOUT/KernelBench or the folder itself."""
    source = os.path.abspath(source)
    for folder in (os.path.join(source, "KernelBench"), source):
        if os.path.isdir(folder) and any(LEVEL_RE.match(n) for n in os.listdir(folder)):
            return folder
    raise AdapterError(f"{source}: not a KernelBench checkout (no KernelBench/level*/ folders)")


class ProblemFile:
    def __init__(self, level: int, path: str):
        self.level = level
        self.path = path
        self.file = os.path.basename(path)
        m = FILE_RE.match(self.file)
        self.pid = int(m.group(1))
        self.title = m.group(2)
        self.name = f"l{level}_{self.pid}_{snake(self.title)}"
        self.relative = f"level{level}/{self.file}"


def list_problems(source: str, levels=None) -> list:
    root = problems_root(source)
    found = []
    for entry in os.listdir(root):
        m = LEVEL_RE.match(entry)
        if not m or (levels and int(m.group(1)) not in levels):
            continue
        level = int(m.group(1))
        for name in os.listdir(os.path.join(root, entry)):
            if FILE_RE.match(name):
                found.append(ProblemFile(level, os.path.join(root, entry, name)))
    found.sort(key=lambda p: (p.level, p.pid, p.file))
    if levels:
        missing = sorted(set(levels) - {p.level for p in found})
        if missing:
            raise AdapterError(f"{root}: no problems in level {', '.join(map(str, missing))}")
    return found


def is_checkout(folder: str) -> bool:
    try:
        problems_root(folder)
        return True
    except AdapterError:
        return False

MISSING_CHECKOUT = "give the KernelBench checkout (--suite kernelbench:CHECKOUT)"
