"""One task's chat messages in its suite's format, with the one-shot example when asked for."""
import hashlib
import json
import os
from dataclasses import dataclass

from . import prompt_template
from .errors import GenerateError
from .retrieval import Corpus
from .task_text import TaskText

FAMILIES = {"keval": "keval", "tritonbench-g": "tritonbench", "tritonbench-t": "tritonbench",
            "kernelbench": "kernelbench", "kernelbenchx": "kernelbenchx"}
MODES = ("zero-shot", "one-shot", "one-shot-retrieved")


@dataclass(frozen=True)
class Prompt:
    messages: list
    template: str       # "keval.v1"
    hash: str           # sha256 of the messages as sent (the resume key's prompt part)
    retrieved: str      # id of the example document ("" for zero-shot)


def messages_hash(messages: list) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def parse_template(name: str) -> tuple:
    """--template NAME.vN: (family, version) of a template file in prompts/; one line naming the
    option when it is not one."""
    family, sep, version = name.rpartition(".v")
    known = sorted(f[:-4] for f in os.listdir(prompt_template.PROMPT_DIR)
                   if f.endswith(".txt") and not f.startswith(("one_shot.", "refine.")))
    if not sep or not version.isdigit() or not os.path.exists(prompt_template.template_path(family, int(version))):
        raise GenerateError("--template", f"no prompt template {name!r} (known: {', '.join(known)})")
    return family, int(version)


def build_prompt(suite_kind: str, task: TaskText, mode: str, corpus: Corpus, template: str | None = None,
                 system_prompt: str | None = None) -> Prompt:
    """template: NAME.vN chosen by name and version (default the suite family's current one);
    system_prompt: replaces the template's [system] section."""
    if suite_kind not in FAMILIES:
        raise GenerateError("--suite", f"unknown suite kind {suite_kind!r} (known: {', '.join(FAMILIES)})")
    if mode not in MODES:
        raise GenerateError("--prompt", f"unknown prompt mode {mode!r} (known: {', '.join(MODES)})")
    family, version = parse_template(template) if template else (FAMILIES[suite_kind], prompt_template.VERSION)
    example, retrieved = "", ""
    if mode != "zero-shot":
        own = [task.golden, task.reference]
        document = (corpus.best(task.instruction, task.name, own) if mode == "one-shot-retrieved"
                    else corpus.first(task.name, own))
        if document is None:
            raise GenerateError(task.name, f"{mode}: the corpus has no example other than the task's own "
                                             "(give one with --corpus)")
        example = prompt_template.render_example(document.instruction, document.code)
        retrieved = document.id
    values = {"instruction": task.instruction, "signature": task.signature, "entry": task.entry,
              "example": example}
    messages = prompt_template.render(family, values, version)
    if system_prompt is not None:
        messages[0] = {"role": "system", "content": system_prompt}
    return Prompt(messages=messages, template=f"{family}.v{version}",
                  hash=messages_hash(messages), retrieved=retrieved)
