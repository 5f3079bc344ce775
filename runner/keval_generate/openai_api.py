"""The OpenAI-compatible chat-completions shape (OpenAI, vLLM, SGLang, DeepSeek, OpenRouter, ...):
POST BASE/chat/completions with a bearer key; the reply as one JSON object or, when the server
streams, as server-sent deltas. A reasoning model's thinking comes as `reasoning_content`
(DeepSeek, vLLM) or `reasoning` (OpenRouter); both are kept."""
import json

from .api_reply import Choice, Reply, malformed
from .server_sent_events import events

DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_VARIABLE = "OPENAI_API_KEY"


def url(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


def headers(api_key: str) -> dict:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def body(model: str, messages: list, settings, seed: int | None, n: int) -> dict:
    b = {"model": model, "messages": messages}
    optional = {"temperature": settings.temperature, "max_tokens": settings.max_tokens, "top_p": settings.top_p,
                "stop": list(settings.stop) or None, "seed": seed, "n": n if n > 1 else None,
                "reasoning_effort": settings.reasoning_effort}
    b.update({k: v for k, v in optional.items() if v is not None})
    if settings.stream:
        b.update(stream=True, stream_options={"include_usage": True})
    return b


def _reasoning(message: dict):
    return message.get("reasoning_content") or message.get("reasoning") or None


def parse(raw: bytes) -> Reply:
    try:
        data = json.loads(raw)
        choices = []
        for choice in data["choices"]:
            text = choice["message"]["content"]
            if text is None:  # a reasoning model out of tokens: an empty answer, not a fault to retry
                text = ""
            if not isinstance(text, str):
                raise TypeError("content is not a string")
            choices.append(Choice(text, _reasoning(choice["message"]), str(choice.get("finish_reason") or "")))
        if not choices:
            raise IndexError("no choices")
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise malformed(e)
    usage = data.get("usage") or {}
    return Reply(sorted_by_index(choices, data["choices"]), usage.get("prompt_tokens"), usage.get("completion_tokens"))


def sorted_by_index(choices: list, raw: list) -> list:
    order = [c.get("index", i) for i, c in enumerate(raw)]
    return [choice for _, choice in sorted(zip(order, choices), key=lambda pair: pair[0])]


def parse_stream(lines) -> Reply:
    texts, thoughts, finish, usage = {}, {}, {}, {}
    try:
        for _, data in events(lines):
            usage = data.get("usage") or usage
            for choice in data.get("choices") or []:
                i, delta = choice.get("index", 0), choice.get("delta") or {}
                texts[i] = texts.get(i, "") + (delta.get("content") or "")
                thought = delta.get("reasoning_content") or delta.get("reasoning")
                if thought:
                    thoughts[i] = thoughts.get(i, "") + thought
                if choice.get("finish_reason"):
                    finish[i] = str(choice["finish_reason"])
    except (ValueError, AttributeError, TypeError) as e:
        raise malformed(e)
    if not texts:
        raise malformed(IndexError("the stream held no choice"))
    choices = [Choice(texts[i], thoughts.get(i), finish.get(i, "")) for i in sorted(texts)]
    return Reply(choices, usage.get("prompt_tokens"), usage.get("completion_tokens"))
