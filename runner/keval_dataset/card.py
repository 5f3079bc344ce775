"""The export's Hugging Face dataset card: README.md with a YAML header naming each config, its
split files and its features, so `datasets.load_dataset(DIR)` reads each config in its own schema
and never globs a nested export (`retime/`) into the main splits.

An export folder inside another (its immediate subfolder) is a config of the outer one, named
after the subfolder; exporting it rewrites the outer card too. A README.md that keval did not
write is the user's and is left alone.
"""

import json
import os
import re

from . import makora_form
from .schema import COLUMNS
from .tables import FORMATS

MARK = "<!-- written by keval dataset export; rewritten by the next export -->"
SPLITS = ("train", "test")


def split_files(folder: str) -> dict:
    """split -> file name (relative to folder), Parquet first, for an export folder."""
    found = {}
    for split in SPLITS:
        for fmt in FORMATS:
            if os.path.exists(os.path.join(folder, f"{split}.{fmt}")):
                found[split] = f"{split}.{fmt}"
                break
    return found


def is_export(folder: str) -> bool:
    return os.path.exists(os.path.join(folder, "manifest.json")) and len(split_files(folder)) == len(SPLITS)


def configs(folder: str) -> list:
    """(config name, path prefix, manifest) of the folder and of its nested exports."""
    found = [("default", "", _manifest(folder))]
    for name in sorted(os.listdir(folder)):
        if os.path.isdir(os.path.join(folder, name)) and is_export(os.path.join(folder, name)):
            found.append((name, name + "/", _manifest(os.path.join(folder, name))))
    return found


def _manifest(folder: str) -> dict:
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def metadata(folder: str) -> dict:
    """The card's YAML header as data: configs with their split files, features per config."""
    found = configs(folder)
    config_list, info = [], []
    for name, prefix, manifest in found:
        files = split_files(os.path.join(folder, prefix))
        entry = {"config_name": name}
        if name == "default":
            entry["default"] = True
        entry["data_files"] = [{"split": split, "path": prefix + files[split]} for split in SPLITS]
        config_list.append(entry)
        info.append({"config_name": name,
                     "features": [{"name": column, "dtype": kind} for column, kind in COLUMNS],
                     "splits": [{"name": split, "num_examples": manifest.get(f"{split}_rows", 0)}
                                for split in SPLITS]})
    return {"pretty_name": "keval latency dataset", "tags": ["triton", "gpu", "latency", "kernels"],
            "configs": config_list, "dataset_info": info}


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value if re.fullmatch(r"[A-Za-z][A-Za-z0-9_./ -]*", value) else json.dumps(value)


def to_yaml(value, indent: int = 0) -> list:
    """Block-style YAML lines of dicts, lists and scalars (the subset a card needs)."""
    pad, lines = " " * indent, []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                lines += [f"{pad}{key}:"] + to_yaml(item, indent + (0 if isinstance(item, list) else 2))
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
        return lines
    for item in value:
        if isinstance(item, (dict, list)):
            inner = to_yaml(item, indent + 2)
            lines += [f"{pad}- {inner[0].lstrip()}"] + inner[1:]
        else:
            lines.append(f"{pad}- {_scalar(item)}")
    return lines


def yaml_header(folder: str) -> str:
    return "\n".join(["---"] + to_yaml(metadata(folder)) + ["---", ""])


BODY = """{mark}
# keval latency dataset

Triton programs with their measured latency, exported by `keval dataset export`, in the columns
of makora's `triton-gpu-latency` dataset (`x`, `y`; `problem_id`, `holdout_group`, null in
train) with keval's provenance columns beside them. keval's docs/dataset.md defines every column.

| config | train rows | test rows | problems | null `y` | `x` forms |
|---|---|---|---|---|---|
{table}

- `x` is one Python program in makora's shape: a reference `Model` (plain PyTorch), a `ModelNew`
  running the submitted Triton code, `get_inputs()` and `get_init_inputs()`; `x_form` says which
  rows run on their own (`keval_task`, `kernelbench`) and which hold the code alone (`code_only:*`).
- The submitted code is everything after the line

      {delimiter}

  so `x.split(DELIMITER + "\\n", 1)[1]` gives it back unchanged.
- `y` is ModelNew's median latency in **milliseconds** on the inputs of its case, null when the
  submission failed (`verdict`, `reasons`). `timer_method` says how it was measured.
- No row holds a path of the machines that ran or exported it: `source_db` names each store by
  its run folder and file (`sweep/keval.db`), and an absolute path in a reason keeps only its
  last two parts (`.../keval_runner/child.py`).

```python
from datasets import load_dataset
ds = load_dataset("parquet", data_files={{"train": "train.parquet", "test": "test.parquet"}})
```
"""


def card(folder: str) -> str:
    rows = []
    for name, _, m in configs(folder):
        forms = ", ".join(f"{k} {v}" for k, v in (m.get("x_forms") or {}).items())
        rows.append(f"| {name} | {m.get('train_rows', 0)} | {m.get('test_rows', 0)} | {m.get('problems', 0)} "
                    f"| {m.get('null_y', 0)} | {forms} |")
    body = BODY.format(mark=MARK, table="\n".join(rows), delimiter=makora_form.DELIMITER)
    return yaml_header(folder) + body


def _write(folder: str) -> None:
    path = os.path.join(folder, "README.md")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if MARK not in f.read():
                return
    with open(path, "w", encoding="utf-8") as f:
        f.write(card(folder))


def write_cards(folder: str) -> None:
    """The folder's card, and its parent's when the folder is a config of a parent export."""
    _write(folder)
    parent = os.path.dirname(os.path.abspath(folder))
    if is_export(parent):
        _write(parent)
