"""A peer task file as TritonBench and KernelBenchX write one: code above a line of 146 `#`,
the test below it."""

SEPARATOR = "#" * 146


def split_file(text: str, last: bool = False) -> tuple:
    """(code above the separator, test below it), split at its first line of `#` (or its last,
    where the peer's own harness splits there); (text, None) when there is no separator."""
    at = text.rfind(SEPARATOR) if last else text.find(SEPARATOR)
    if at < 0:
        return text, None
    return text[:at], text[at + len(SEPARATOR):]
