"""The Anthropic Messages API shape: POST BASE/messages with `x-api-key` and `anthropic-version`;
the system prompt is a field of its own, `max_tokens` is required (MAX_TOKENS_DEFAULT when not
given, and that value is what the resume key records), one answer per request (no `n`), no seed.
The reply's `text` blocks are the answer and its `thinking` blocks the reasoning (extended
thinking with --thinking-budget); streamed, they come as content_block_delta events."""
import json

from .api_reply import Choice, Reply, TransientError, malformed
from .server_sent_events import events

DEFAULT_BASE_URL = "https://api.anthropic.com/v1"
KEY_VARIABLE = "ANTHROPIC_API_KEY"
VERSION = "2023-06-01"
MAX_TOKENS_DEFAULT = 8192
EMPTY_ANSWER = "(no answer)"  # the API refuses an empty message; a refinement turn may follow one


def url(base_url: str) -> str:
    return base_url.rstrip("/") + "/messages"


def headers(api_key: str) -> dict:
    return {"anthropic-version": VERSION, **({"x-api-key": api_key} if api_key else {})}


def body(model: str, messages: list, settings, seed: int | None, n: int) -> dict:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    b = {"model": model, "max_tokens": settings.max_tokens or MAX_TOKENS_DEFAULT,
         "messages": [dict(m, content=m["content"] or EMPTY_ANSWER) for m in messages if m["role"] != "system"]}
    optional = {"system": system or None, "temperature": settings.temperature, "top_p": settings.top_p,
                "stop_sequences": list(settings.stop) or None, "stream": True if settings.stream else None,
                "thinking": ({"type": "enabled", "budget_tokens": settings.thinking_budget}
                             if settings.thinking_budget else None)}
    b.update({k: v for k, v in optional.items() if v is not None})
    return b


def _choice(blocks: list, stop_reason) -> Choice:
    text = "".join(b.get("text") or "" for b in blocks if b.get("type") == "text")
    thinking = "".join(b.get("thinking") or "" for b in blocks if b.get("type") == "thinking")
    return Choice(text, thinking or None, str(stop_reason or ""))


def parse(raw: bytes) -> Reply:
    try:
        data = json.loads(raw)
        if not isinstance(data["content"], list):
            raise TypeError("content is not a list")
        choice = _choice(data["content"], data.get("stop_reason"))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise malformed(e)
    usage = data.get("usage") or {}
    return Reply([choice], usage.get("input_tokens"), usage.get("output_tokens"))


def parse_stream(lines) -> Reply:
    blocks, stop, prompt_tokens, completion_tokens = {}, None, None, None
    try:
        for name, data in events(lines):
            kind = data.get("type", name)
            if kind == "error":  # e.g. overloaded_error in the middle of a stream
                raise TransientError(f"stream error: {(data.get('error') or {}).get('type')}")
            if kind == "message_start":
                prompt_tokens = ((data.get("message") or {}).get("usage") or {}).get("input_tokens")
            elif kind == "content_block_start":
                blocks[data["index"]] = dict(data["content_block"])
            elif kind == "content_block_delta":
                delta, block = data["delta"], blocks.setdefault(data["index"], {"type": "text"})
                if delta.get("type") == "text_delta":
                    block["text"] = (block.get("text") or "") + delta["text"]
                elif delta.get("type") == "thinking_delta":
                    block["thinking"] = (block.get("thinking") or "") + delta["thinking"]
            elif kind == "message_delta":
                stop = (data.get("delta") or {}).get("stop_reason") or stop
                completion_tokens = (data.get("usage") or {}).get("output_tokens", completion_tokens)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise malformed(e)
    if not blocks and stop is None:
        raise malformed(IndexError("the stream held no message"))
    return Reply([_choice([blocks[i] for i in sorted(blocks)], stop)], prompt_tokens, completion_tokens)
