"""BM25 retrieval of the one-shot example, through SQLite FTS5 (in Python's sqlite3).

The corpus holds the other tasks' goldens and, when given, a peer's corpus. A task's own golden
or reference never comes back: documents of the same task are filtered in the query, and so is
any near-copy of them filed under another name (a sibling task's golden that differs in a few
names): a document that holds NEAR_COPY or more of the golden's (or reference's) token 4-grams,
comments left out, is dropped."""
import collections
import re
import sqlite3
from dataclasses import dataclass

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CANDIDATES = 50  # ranked hits read before giving up on finding one that is not excluded
# A document holding this share of a task's golden's token 4-grams is a near-copy of it. On
# keval's suite, without it 16 of 84 tasks were shown a sibling whose CodeBLEU against their own
# golden is 0.7 or more (flash_attention_gqa got flash_attention_causal: 0.89 of its 4-grams,
# CodeBLEU 0.84); with it, none is, and every task still has an example.
NEAR_COPY = 0.7
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d*)?|\S")
COMMENT = re.compile(r"#[^\n]*")


@dataclass(frozen=True)
class Document:
    id: str           # "golden:softmax", "peer:train_crawl.json:17"
    task: str         # the task it solves ("" when unknown)
    instruction: str  # what it solves, in words (may be "")
    code: str


def four_grams(code: str) -> collections.Counter:
    tokens = TOKEN.findall(COMMENT.sub("", code))
    return collections.Counter(tuple(tokens[i:i + 4]) for i in range(len(tokens) - 3))


def containment(own: collections.Counter, document_code: str) -> float:
    """The share of `own`'s 4-grams (with their counts) that the document's code holds."""
    total = sum(own.values())
    if not total:
        return 0.0
    theirs = four_grams(document_code)
    return sum(min(count, theirs[gram]) for gram, count in own.items()) / total


class Exclusion:
    """A task's own codes (golden, reference): a document of the task, or near-copies of them."""

    def __init__(self, task: str, excluded_code: list):
        self.task = task
        self.own = [four_grams(c) for c in excluded_code if c.strip()]

    def allows(self, document: "Document") -> bool:
        return document.task != self.task and all(containment(g, document.code) < NEAR_COPY for g in self.own)


def match_query(text: str) -> str:
    words = sorted({w.lower() for w in WORD.findall(text) if len(w) > 1})
    return " OR ".join(f'"{w}"' for w in words)


class Corpus:
    def __init__(self, documents: list):
        self.documents = {d.id: d for d in documents}
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.execute("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, task UNINDEXED, body)")
        self.db.executemany("INSERT INTO docs(id, task, body) VALUES (?, ?, ?)",
                            [(d.id, d.task, d.instruction + "\n" + d.code) for d in documents])

    def best(self, query: str, task: str, excluded_code: list):
        """The highest-ranked document (BM25) that is neither of `task` nor a near-copy of its codes."""
        expression = match_query(query)
        if not expression:
            return None
        exclusion = Exclusion(task, excluded_code)
        rows = self.db.execute(
            "SELECT id FROM docs WHERE docs MATCH ? AND task != ? ORDER BY bm25(docs), id LIMIT ?",
            (expression, task, CANDIDATES)).fetchall()
        for (doc_id,) in rows:
            document = self.documents[doc_id]
            if exclusion.allows(document):
                return document
        return None

    def first(self, task: str, excluded_code: list):
        """The fixed example of plain one-shot: the first document by id that may be shown."""
        exclusion = Exclusion(task, excluded_code)
        for doc_id in sorted(self.documents):
            document = self.documents[doc_id]
            if exclusion.allows(document):
                return document
        return None
