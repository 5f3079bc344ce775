"""The generation store (SQLite): one row per (model, settings, prompt hash, sample index),
committed as each response arrives, so an interrupted run loses only requests in flight and a
rerun asks for exactly the rows that are missing. `settings` is the canonical JSON of every other
setting that changes an answer (base URL, temperature, max tokens, template, and those of
request_settings.key_fields): a rerun with
another temperature asks again instead of reusing answers sampled under the old one."""
import json
import sqlite3
import threading
import time

from .errors import GenerateError

SCHEMA = """
CREATE TABLE IF NOT EXISTS samples (
  model TEXT NOT NULL, settings TEXT NOT NULL, prompt_hash TEXT NOT NULL, sample INTEGER NOT NULL,
  task TEXT NOT NULL, template TEXT NOT NULL, retrieved TEXT NOT NULL,
  messages TEXT NOT NULL, response TEXT NOT NULL,
  prompt_tokens INTEGER, completion_tokens INTEGER, latency_s REAL, cost_usd REAL,
  attempts INTEGER, finish_reason TEXT, created_unix REAL, reasoning TEXT,
  PRIMARY KEY (model, settings, prompt_hash, sample))
"""


class SampleStore:
    def __init__(self, path: str):
        self.lock = threading.Lock()
        self.db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(SCHEMA)
        self.db.commit()
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(samples)")}
        if "settings" not in columns:  # keyed without the settings: its rows cannot be told apart
            raise GenerateError(path, "a store from an older keval (its resume key lacks temperature, max tokens "
                                      "and base URL); give a new --store")
        if "reasoning" not in columns:  # written before reasoning was kept: its rows stay valid
            self.db.execute("ALTER TABLE samples ADD COLUMN reasoning TEXT")
            self.db.commit()

    def has(self, model: str, settings: str, prompt_hash: str, sample: int) -> bool:
        with self.lock:
            return self.db.execute(
                "SELECT 1 FROM samples WHERE model=? AND settings=? AND prompt_hash=? AND sample=?",
                (model, settings, prompt_hash, sample)).fetchone() is not None

    def put(self, model: str, settings: str, prompt, task: str, sample: int, completion, cost_usd):
        with self.lock:
            self.db.execute(
                "INSERT OR IGNORE INTO samples (model, settings, prompt_hash, sample, task, template, retrieved, "
                "messages, response, prompt_tokens, completion_tokens, latency_s, cost_usd, attempts, finish_reason, "
                "created_unix, reasoning) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (model, settings, prompt.hash, sample, task, prompt.template, prompt.retrieved,
                 json.dumps(prompt.messages, ensure_ascii=False), completion.text,
                 completion.prompt_tokens, completion.completion_tokens, completion.latency_s, cost_usd,
                 completion.attempts, completion.finish_reason, time.time(), completion.reasoning))
            self.db.commit()

    def get(self, model: str, settings: str, prompt_hash: str, sample: int) -> dict | None:
        with self.lock:
            cursor = self.db.execute(
                "SELECT * FROM samples WHERE model=? AND settings=? AND prompt_hash=? AND sample=?",
                (model, settings, prompt_hash, sample))
            row = cursor.fetchone()
            return dict(zip([c[0] for c in cursor.description], row)) if row else None

    def close(self):
        self.db.close()
