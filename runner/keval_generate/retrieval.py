"""BM25 retrieval of the one-shot example, through SQLite FTS5 (in Python's sqlite3).

The corpus holds the other tasks' goldens and, when given, a peer's corpus. A task's own golden
or reference never comes back: documents of the same task are filtered in the query, and any
document whose code is the task's golden or reference (after normalising whitespace) is dropped
too, so a copy filed under another name cannot leak it either."""
import hashlib
import re
import sqlite3
from dataclasses import dataclass

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CANDIDATES = 50  # ranked hits read before giving up on finding one that is not excluded


@dataclass(frozen=True)
class Document:
    id: str           # "golden:softmax", "peer:train_crawl.json:17"
    task: str         # the task it solves ("" when unknown)
    instruction: str  # what it solves, in words (may be "")
    code: str


def code_key(code: str) -> str:
    return hashlib.sha256(" ".join(code.split()).encode()).hexdigest()


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
        """The highest-ranked document (BM25) that is neither of `task` nor one of its codes."""
        expression = match_query(query)
        if not expression:
            return None
        banned = {code_key(c) for c in excluded_code if c.strip()}
        rows = self.db.execute(
            "SELECT id FROM docs WHERE docs MATCH ? AND task != ? ORDER BY bm25(docs), id LIMIT ?",
            (expression, task, CANDIDATES)).fetchall()
        for (doc_id,) in rows:
            document = self.documents[doc_id]
            if document.task != task and code_key(document.code) not in banned:
                return document
        return None

    def first(self, task: str, excluded_code: list):
        """The fixed example of plain one-shot: the first document by id that may be shown."""
        banned = {code_key(c) for c in excluded_code if c.strip()}
        for doc_id in sorted(self.documents):
            document = self.documents[doc_id]
            if document.task != task and code_key(document.code) not in banned:
                return document
        return None
