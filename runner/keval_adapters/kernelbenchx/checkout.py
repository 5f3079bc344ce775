"""A KernelBenchX checkout: its task list `data/kernelbenchx_v1.json` and the files each task
names."""

import json
import os

from ..common.errors import AdapterError

METADATA = os.path.join("data", "kernelbenchx_v1.json")


class Checkout:
    def __init__(self, root: str):
        self.root = os.path.abspath(root)
        path = os.path.join(self.root, METADATA)
        if not os.path.isfile(path):
            raise AdapterError(f"{self.root}: not a KernelBenchX checkout (no {METADATA})")
        with open(path, encoding="utf-8") as f:
            try:
                self.entries = json.load(f)
            except json.JSONDecodeError as e:
                raise AdapterError(f"{path}: invalid JSON: {e.msg} (line {e.lineno})")
        if not isinstance(self.entries, list):
            raise AdapterError(f"{path}: expected a JSON list of tasks")
        self.data = os.path.join(self.root, "data", "kernelbenchx")
        self.perf = os.path.join(self.root, "metrics", "golden_metrics")
        self.perf_utils = os.path.join(self.root, "metrics", "performance_utils.py")
        self.data_utils = os.path.join(self.root, "utils", "data_utils.py")

    def stems(self) -> dict:
        """stem -> metadata entry (KernelBenchX names tasks by file basename)."""
        return {os.path.splitext(os.path.basename(e["file"]))[0]: e
                for e in self.entries if isinstance(e, dict) and isinstance(e.get("file"), str)}

    def task_files(self, entry: dict) -> list:
        stem = os.path.splitext(os.path.basename(entry["file"]))[0]
        files = [os.path.join(self.data, entry["file"]), os.path.join(self.perf, f"{stem}_perf.py")]
        return [p for p in files if os.path.exists(p)]


def is_checkout(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, METADATA))
