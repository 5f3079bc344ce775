"""Which API shape a model is asked through, from its name's prefix: `anthropic/NAME` goes to the
Anthropic Messages API as NAME, `openai/NAME` to an OpenAI-compatible server as NAME, and any
other name (vLLM's `Qwen/Qwen2.5-Coder-32B-Instruct` included) to an OpenAI-compatible server
unchanged."""
from dataclasses import dataclass

from . import anthropic_api, openai_api

APIS = {"openai": openai_api, "anthropic": anthropic_api}


@dataclass(frozen=True)
class Provider:
    name: str         # "openai" or "anthropic"
    model: str        # the model as the API knows it (the prefix taken off)
    api: object       # the module that speaks the API's shape


def provider_of(model: str) -> Provider:
    prefix, _, rest = model.partition("/")
    if prefix in APIS and rest:
        return Provider(prefix, rest, APIS[prefix])
    return Provider("openai", model, openai_api)
