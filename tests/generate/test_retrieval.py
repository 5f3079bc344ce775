"""The one-shot example: BM25 over the corpus, and it never shows a task its own golden or reference."""
import pytest

from conftest import SUITE
from keval_generate.errors import GenerateError
from keval_generate.prompt_builder import build_prompt
from keval_generate.retrieval import NEAR_COPY, Corpus, Document, containment, four_grams
from keval_generate.task_text import all_task_names, load_tasks
from keval_generate.corpus_sources import golden_documents


@pytest.fixture(scope="module")
def suite_tasks():
    return load_tasks(str(SUITE), all_task_names(str(SUITE)))


def test_retrieval_never_returns_the_tasks_own_golden(suite_tasks):
    corpus = Corpus(golden_documents(suite_tasks))
    for task in suite_tasks:
        prompt = build_prompt("keval", task, "one-shot-retrieved", corpus)
        assert prompt.retrieved and prompt.retrieved != f"golden:{task.name}"
        shown = prompt.messages[1]["content"]
        assert task.golden.strip() not in shown, task.name


def test_a_copy_of_the_golden_under_another_name_is_not_returned_either(suite_tasks):
    softmax = next(t for t in suite_tasks if t.name == "softmax")
    # The copies match the query best (they hold its own instruction), yet they are the answer.
    copies = [Document("peer:copy-of-golden", "renamed_softmax", softmax.instruction, softmax.golden),
              Document("peer:copy-of-reference", "", softmax.instruction, "  " + softmax.reference.replace("\n", "\n ")),
              Document("peer:same-task", "softmax", softmax.instruction, "def softmax(x): ...")]
    corpus = Corpus(golden_documents(suite_tasks) + copies)
    best = corpus.best(softmax.instruction, "softmax", [softmax.golden, softmax.reference])
    assert best is not None and best.id not in {d.id for d in copies} and best.task != "softmax"
    assert corpus.first("softmax", [softmax.golden, softmax.reference]).id not in {d.id for d in copies}


def test_a_near_copy_with_other_names_and_comments_is_not_returned(suite_tasks):
    softmax = next(t for t in suite_tasks if t.name == "softmax")
    renamed = ("# a fast softmax, tuned by hand\n" + softmax.golden.replace("softmax", "row_normalise")
               .replace("BLOCK", "TILE").replace("\n\n", "\n# --\n\n"))
    near = Document("peer:renamed", "row_normalise", softmax.instruction, renamed)
    corpus = Corpus(golden_documents(suite_tasks) + [near])
    assert containment(four_grams(softmax.golden), renamed) >= NEAR_COPY
    assert corpus.best(softmax.instruction, "softmax", [softmax.golden, softmax.reference]).id != near.id
    assert corpus.first("softmax", [softmax.golden, softmax.reference]).id != near.id


def test_no_task_is_shown_a_sibling_that_nearly_copies_its_golden(suite_tasks):
    corpus = Corpus(golden_documents(suite_tasks))
    for task in suite_tasks:
        shown = corpus.documents[build_prompt("keval", task, "one-shot-retrieved", corpus).retrieved]
        assert containment(four_grams(task.golden), shown.code) < NEAR_COPY, (task.name, shown.id)


def test_retrieval_ranks_the_nearest_task_first(suite_tasks):
    corpus = Corpus([Document("a", "a", "reduce rows with a running sum", "def cumsum_like(): pass"),
                     Document("b", "b", "matrix multiply tiles with tl.dot", "def matmul_like(): pass")])
    assert corpus.best("tiled matrix multiply using tl.dot", "x", []).id == "b"


def test_a_corpus_of_only_the_task_itself_is_an_error(suite_tasks):
    relu = next(t for t in suite_tasks if t.name == "relu")
    with pytest.raises(GenerateError, match="relu: one-shot-retrieved: the corpus has no example"):
        build_prompt("keval", relu, "one-shot-retrieved", Corpus(golden_documents([relu])))


def test_a_peer_corpus_file_gives_its_code_without_the_appended_test(tmp_path):
    from keval_generate.corpus_sources import file_documents
    corpus = tmp_path / "records.jsonl"
    corpus.write_text('{"task_id": "Activation/gelu.py", "after_code": "def gelu(x): ...\\n' + "#" * 146 +
                      '\\ndef test_gelu(): ..."}\n{"task_id": "x.py"}\n')
    (document,) = file_documents(str(corpus))
    assert document.task == "gelu" and document.code == "def gelu(x): ...\n" and document.id == "peer:records.jsonl:0"
    corpus.write_text("{broken\n")
    with pytest.raises(GenerateError, match=r"records.jsonl:1: invalid JSON"):
        file_documents(str(corpus))
