"""A reader of the block-YAML subset a dataset card's header uses (maps, lists, scalars), so the
tests check the card without PyYAML; where PyYAML is installed the tests compare both."""
import json


def header_of(card: str) -> str:
    assert card.startswith("---\n"), "a card opens with its YAML header"
    return card[4:card.index("\n---\n", 4)]


def _scalar(text: str):
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"'):
        return json.loads(text)
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _block(lines, i, indent):
    if lines[i][1].startswith("- "):
        items = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            text = lines[i][1][2:]
            if ":" in text and not text.startswith('"'):
                lines[i] = (indent + 2, text)  # the first key of a map item
                item, i = _block(lines, i, indent + 2)
            else:
                item, i = _scalar(text), i + 1
            items.append(item)
        return items, i
    mapping = {}
    while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("- "):
        key, _, rest = lines[i][1].partition(":")
        i += 1
        if rest.strip():
            mapping[key] = _scalar(rest.strip())
        elif i < len(lines) and (lines[i][0] > indent or lines[i][1].startswith("- ")):
            mapping[key], i = _block(lines, i, lines[i][0])
        else:
            mapping[key] = None
    return mapping, i


def parse(header: str):
    lines = [(len(line) - len(line.lstrip(" ")), line.strip()) for line in header.splitlines() if line.strip()]
    value, end = _block(lines, 0, 0)
    assert end == len(lines), f"unread YAML from line {end}: {lines[end]}"
    return value
