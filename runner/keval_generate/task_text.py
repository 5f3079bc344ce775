"""What a prompt is made of, read from a (native or adapted) task folder: task.toml's
instruction, signature and entry, and golden.py (the retrieval corpus and CodeBLEU's reference)."""
import os
import tomllib
from dataclasses import dataclass

from .errors import GenerateError


@dataclass(frozen=True)
class TaskText:
    name: str
    instruction: str
    signature: str
    entry: str
    golden: str      # golden.py's text ("" when the folder has none)
    reference: str   # reference.py's text ("" when the folder has none)


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as e:
        raise GenerateError(path, f"cannot read: {e}")


def load_task(folder: str) -> TaskText:
    toml_path = os.path.join(folder, "task.toml")
    try:
        with open(toml_path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise GenerateError(toml_path, "no such file (is the folder a task?)")
    except tomllib.TOMLDecodeError as e:
        raise GenerateError(toml_path, f"invalid TOML: {e}")
    for field in ("name", "instruction", "entry"):
        if not isinstance(data.get(field), str) or not data[field].strip():
            raise GenerateError(toml_path, f"field \"{field}\" is missing or empty")
    return TaskText(name=data["name"], instruction=data["instruction"].strip(),
                    signature=str(data.get("signature", "")).strip(), entry=data["entry"],
                    golden=read_text(os.path.join(folder, "golden.py")),
                    reference=read_text(os.path.join(folder, "reference.py")))


def load_tasks(suite_folder: str, names: list) -> list:
    return [load_task(os.path.join(suite_folder, name)) for name in names]


def all_task_names(suite_folder: str) -> list:
    return sorted(n for n in os.listdir(suite_folder) if os.path.isfile(os.path.join(suite_folder, n, "task.toml")))
