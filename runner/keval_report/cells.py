"""How figures read in the report's tables (HTML and Markdown alike)."""

RELATIVE_ERROR_SHOWN = 1e300  # above this the reference was 0: a relative error says nothing


def percent(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def times(value) -> str:
    return "–" if value is None else f"{value:.2f}x"


def ms(value) -> str:
    if value is None:
        return "–"
    return f"{value:.4g} ms"


def number(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    if isinstance(value, float) and abs(value) >= RELATIVE_ERROR_SHOWN:
        return "– (reference 0)"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def element(value) -> str:
    """An output element: seven digits, so two close values still read as different."""
    if isinstance(value, float):
        return f"{value:.7g}"
    return number(value)


def first_reason(result: dict, limit: int = 0) -> str:
    reasons = result.get("reasons") or []
    text = " ".join(str(reasons[0]).split()) if reasons else ""
    return text if not limit or len(text) <= limit else text[:limit - 1] + "…"


def ci(interval) -> str:
    return "" if not interval else f" [{interval[0]:.2f}, {interval[1]:.2f}]"
