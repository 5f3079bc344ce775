"""The request settings of `keval generate` beyond model and prompt, and the part of them that
goes into the resume key and the record: every one that changes an answer. Header values are
kept out of the record (they may hold keys): the key holds their digest, the record their names."""
import hashlib
import json
from dataclasses import dataclass

from .errors import GenerateError


@dataclass(frozen=True)
class RequestSettings:
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    stop: tuple = ()
    n: int = 1                       # answers per request (OpenAI-compatible only)
    stream: bool = False             # ask for server-sent events (the answer is the same)
    thinking_budget: int | None = None   # Anthropic extended thinking
    reasoning_effort: str | None = None  # OpenAI reasoning models
    headers: tuple = ()              # (name, value) sent with every request


def parse_header(text: str) -> tuple:
    name, sep, value = text.partition(":")
    if not sep or not name.strip() or any(c in name for c in " \r\n") or any(c in value for c in "\r\n"):
        raise GenerateError("--header", f"{text!r} is not NAME: VALUE")
    return name.strip(), value.strip()


def stops_from(values) -> tuple:
    """--stop's values as given. Python's argparse before 3.13 takes a value that is exactly
    "--" (`--stop=--`, as keval passes it on) for its separator, drops it and appends [] instead:
    that [] can only be a "--"."""
    return tuple("--" if value == [] else value for value in values or ())


def settings_from(args) -> RequestSettings:
    if args.n < 1:
        raise GenerateError("--n", "must be 1 or more")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        raise GenerateError("--top-p", f"{args.top_p} is not in (0, 1]")
    return RequestSettings(temperature=args.temperature, max_tokens=args.max_tokens, top_p=args.top_p,
                           stop=stops_from(args.stop), n=args.n, stream=args.stream,
                           thinking_budget=args.thinking_budget, reasoning_effort=args.reasoning_effort,
                           headers=tuple(parse_header(h) for h in args.header or ()))


def key_fields(settings: RequestSettings, provider, effective_max_tokens, system_prompt: str | None) -> dict:
    """Fields added to the resume key beyond base URL, temperature, max tokens, template and prompt
    mode; each only when set, so a store written before they existed keeps its keys."""
    fields = {"provider": provider.name if provider.name != "openai" else None,
              "max_tokens": effective_max_tokens, "top_p": settings.top_p, "stop": list(settings.stop) or None,
              "n": settings.n if settings.n > 1 else None, "thinking_budget": settings.thinking_budget,
              "reasoning_effort": settings.reasoning_effort,
              "headers_sha256": digest(sorted(settings.headers)) if settings.headers else None,
              "header_names": sorted(name for name, _ in settings.headers) or None,
              "system_prompt_sha256": digest(system_prompt) if system_prompt is not None else None}
    return {k: v for k, v in fields.items() if v is not None or k == "max_tokens"}


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).hexdigest()[:16]
