"""Writing a generated suite folder atomically, skipped while the stamp of its inputs is
unchanged."""

import hashlib
import json
import os
import shutil

from .errors import AdapterError

ADAPTERS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENDOR_DIR = os.path.join(ADAPTERS_DIR, "vendor")


def adapter_sources(peer: str) -> list:
    """The files whose change must regenerate a peer's suites: its package, this shared package
    and the vendored code, in a fixed order."""
    files = []
    for folder in (os.path.join(ADAPTERS_DIR, peer), os.path.join(ADAPTERS_DIR, "common"), VENDOR_DIR):
        files += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
    return files


def file_digest(paths, extra: str = "") -> str:
    """sha256 over `extra` and the names and contents of `paths` (in the order given)."""
    digest = hashlib.sha256(extra.encode())
    for path in paths:
        digest.update(b"\0" + str(path).encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


class SuiteWriter:
    """Builds `out` in a sibling folder and swaps it in at the end; a no-op when the stamp of the
    inputs matches the one `out` was built from (`up_to_date`)."""

    def __init__(self, out: str, stamp_name: str, digest: str):
        self.out = os.path.abspath(out)
        self.stamp_name = stamp_name
        self.digest = digest
        self.building = f"{self.out}.building-{os.getpid()}"

    @property
    def up_to_date(self) -> bool:
        try:
            with open(os.path.join(self.out, self.stamp_name)) as f:
                return f.read().strip() == self.digest
        except OSError:
            return False

    def report(self) -> dict:
        """The report `out` was built with (ADAPTED.json)."""
        with open(os.path.join(self.out, "ADAPTED.json"), encoding="utf-8") as f:
            return json.load(f)

    def begin(self) -> None:
        if os.path.exists(self.out) and not (
                os.path.isdir(self.out) and (not os.listdir(self.out) or
                                             os.path.exists(os.path.join(self.out, self.stamp_name)))):
            raise AdapterError(f"{self.out}: exists and was not written by this adapter; give another --out")
        os.makedirs(os.path.dirname(self.out), exist_ok=True)
        shutil.rmtree(self.building, ignore_errors=True)
        os.makedirs(self.building)

    def task_dir(self, name: str) -> str:
        """Where a task is written now; files inside must name `final_dir(name)` instead."""
        path = os.path.join(self.building, name)
        os.makedirs(path, exist_ok=True)
        return path

    def final_dir(self, name: str) -> str:
        return os.path.join(self.out, name)

    def write(self, task: str, relative: str, text) -> None:
        path = os.path.join(self.building, task, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(path, mode, **({} if isinstance(text, bytes) else {"encoding": "utf-8"})) as f:
            f.write(text)

    def commit(self, report: dict) -> None:
        with open(os.path.join(self.building, "ADAPTED.json"), "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)
            f.write("\n")
        with open(os.path.join(self.building, self.stamp_name), "w") as f:
            f.write(self.digest + "\n")
        readable(self.building)
        old = f"{self.out}.old-{os.getpid()}"
        if os.path.exists(self.out):
            os.rename(self.out, old)
        os.rename(self.building, self.out)
        shutil.rmtree(old, ignore_errors=True)

    def abort(self) -> None:
        shutil.rmtree(self.building, ignore_errors=True)


def readable(root: str) -> None:
    """Folders 0755 and files 0644: job children may run as another uid and read task files."""
    for folder, dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
