"""A versioned prompt file (prompts/<family>.v<N>.txt): its [system] and [user] sections, with
`{{name}}` marks replaced literally (instructions may hold braces of their own)."""
import os
import re

from .errors import GenerateError

PROMPT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prompts")
VERSION = 1
MARK = re.compile(r"\{\{(\w+)\}\}")


def template_path(family: str, version: int = VERSION) -> str:
    return os.path.join(PROMPT_DIR, f"{family}.v{version}.txt")


def read_sections(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenerateError(path, f"cannot read the prompt template: {e}")
    sections, current = {}, None
    for line in text.splitlines(keepends=True):
        header = re.fullmatch(r"\[(\w+)\]\s*", line)
        if header:
            current = header.group(1)
            sections[current] = ""
        elif current is None:
            if line.strip():
                raise GenerateError(path, "text before the first [section]")
        else:
            sections[current] += line
    return {name: body.strip("\n") for name, body in sections.items()}


def fill(text: str, values: dict, where: str) -> str:
    def replace(match):
        name = match.group(1)
        if name not in values:
            raise GenerateError(where, f"unknown mark {{{{{name}}}}} (known: {', '.join(sorted(values))})")
        return values[name]
    return MARK.sub(replace, text)


def render(family: str, values: dict, version: int = VERSION) -> list:
    """Chat messages: [{"role": "system", ...}, {"role": "user", ...}]."""
    path = template_path(family, version)
    sections = read_sections(path)
    for needed in ("system", "user"):
        if needed not in sections:
            raise GenerateError(path, f"no [{needed}] section")
    return [{"role": role, "content": fill(sections[role], values, path).strip() + "\n"}
            for role in ("system", "user")]


def render_example(instruction: str, code: str, version: int = VERSION) -> str:
    path = template_path("one_shot", version)
    with open(path, encoding="utf-8") as f:
        return fill(f.read(), {"example_instruction": instruction.strip(), "example_code": code.strip()}, path)
