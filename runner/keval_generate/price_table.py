"""--prices FILE: US dollars per million tokens per model, one JSON object
    {"anthropic/claude-sonnet-4-5": {"input": 3, "output": 15}, "gpt-4o": {"input": 2.5, "output": 10}}
looked up by the model name as given, then without its provider prefix."""
import json
import math

from .errors import GenerateError


def load_prices(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            table = json.load(f)
    except OSError as e:
        raise GenerateError(path, f"cannot read the price table: {e.strerror}")
    except json.JSONDecodeError as e:
        raise GenerateError(path, f"line {e.lineno}: not JSON ({e.msg})")
    if not isinstance(table, dict):
        raise GenerateError(path, "the price table is not a JSON object of model names")
    for model, entry in table.items():
        for side in ("input", "output"):
            value = entry.get(side) if isinstance(entry, dict) else None
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise GenerateError(path, f"{model}.{side}: not a price per million tokens (a number >= 0)")
    return table


def prices_for(path: str, model: str, api_model: str) -> tuple:
    """(input, output) per million tokens of `model`; one line naming the file when it has none."""
    table = load_prices(path)
    entry = table.get(model) or table.get(api_model)
    if entry is None:
        raise GenerateError(path, f"no price for model {model!r} (it has {', '.join(sorted(table)) or 'none'})")
    return float(entry["input"]), float(entry["output"])
