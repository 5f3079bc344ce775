"""Each suite's prompt format renders from its versioned template file."""
import pytest

from keval_generate import prompt_template
from keval_generate.errors import GenerateError
from keval_generate.prompt_builder import FAMILIES, build_prompt, messages_hash
from keval_generate.retrieval import Corpus
from keval_generate.task_text import TaskText

TASK = TaskText(name="t", instruction="Functional Description: adds {braces} stay", signature="t(x) -> y",
                entry="t", golden="", reference="")


@pytest.mark.parametrize("kind", sorted(FAMILIES))
def test_every_suite_kind_renders_its_template(kind):
    prompt = build_prompt(kind, TASK, "zero-shot", Corpus([]))
    assert prompt.template == f"{FAMILIES[kind]}.v{prompt_template.VERSION}"
    assert [m["role"] for m in prompt.messages] == ["system", "user"]
    assert "adds {braces} stay" in prompt.messages[1]["content"]
    assert "{{" not in prompt.messages[1]["content"]
    assert prompt.hash == messages_hash(prompt.messages) and prompt.retrieved == ""


def test_unknown_prompt_mode_names_the_option():
    with pytest.raises(GenerateError, match="--prompt: unknown prompt mode 'two-shot'"):
        build_prompt("keval", TASK, "two-shot", Corpus([]))


def test_a_template_with_an_unknown_mark_names_the_file(tmp_path, monkeypatch):
    (tmp_path / "keval.v1.txt").write_text("[system]\nS\n[user]\n{{instructions}}\n")
    monkeypatch.setattr(prompt_template, "PROMPT_DIR", str(tmp_path))
    with pytest.raises(GenerateError, match=r"keval.v1.txt: unknown mark \{\{instructions\}\}"):
        build_prompt("keval", TASK, "zero-shot", Corpus([]))
