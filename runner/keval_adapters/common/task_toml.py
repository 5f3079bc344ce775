"""task.toml text for a generated task (the controller parses it with toml++).

tomli_w (vendored: keval_adapters/vendor) formats every value; this file only lays the document
out: fields in a fixed order, one table per dtype's tolerance, one [[cases]] table per case with
its params inline (a case reads as one block).
"""

import math
import tomllib

from ..vendor import tomli_w

FIELD_ORDER = ["name", "version", "adapter", "track", "category", "difficulty", "entry", "signature",
               "instruction", "dtypes", "inplace", "require_kernel", "check_reference_defined",
               "shared_inputs", "inputs_on_device", "flops", "bytes", "source", "notes"]


def _finite(value):
    """value, refusing NaN and infinities anywhere in it (a tolerance computed from a peer's
    metadata could be one; TOML would take it, keval's judge should not)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value}")
    for inner in value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ():
        _finite(inner)
    return value


def _line(key: str, value, multiline: bool = True) -> str:
    """`key = value` as tomli_w writes it, a dict as an inline table (tomli_w would make it a
    table of its own) whose strings stay on one line."""
    if isinstance(value, dict):
        key_text = tomli_w.dumps({key: 0}).rstrip("\n").rsplit(" = ", 1)[0]
        inner = ", ".join(_line(k, v, multiline=False) for k, v in value.items())
        return f"{key_text} = {{ {inner} }}" if inner else f"{key_text} = {{}}"
    return tomli_w.dumps({key: _finite(value)}, multiline_strings=multiline).rstrip("\n")


def task_toml(fields: dict, tolerances: dict, cases: list) -> str:
    """task.toml text. fields: task.toml's top-level fields (None: left out); tolerances: dtype ->
    (atol, rtol, reason); cases: dicts of name, small, params and any other case field (None:
    left out)."""
    unknown = set(fields) - set(FIELD_ORDER)
    if unknown:
        raise ValueError(f"unknown task fields {sorted(unknown)}")
    if not fields.get("adapter"):
        raise ValueError("a generated task names its adapter: its evaluation key follows that code")
    lines = [_line(key, fields[key]) for key in FIELD_ORDER if fields.get(key) is not None]
    for dtype, (atol, rtol, reason) in tolerances.items():
        lines += ["", f"[tolerance.{dtype}]", _line("atol", float(atol)), _line("rtol", float(rtol)),
                  _line("reason", reason)]
    for case in cases:
        lines += ["", "[[cases]]"] + [_line(k, v) for k, v in case.items() if v is not None]
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)  # a generator bug shows here, not as a load error in the controller
    return text
