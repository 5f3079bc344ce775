"""The synchronous client: submit one candidate or a batch, poll, wait, evaluate (all three).

    client = KevalClient("http://gpu1:8000", token=open("token").read().strip())
    results = client.evaluate_batch([Submission("softmax", code, key=f"step{s}-{i}") for i, code in ...])
    rewards = [r.reward("ladder") for r in results]
"""
import time
import urllib.parse
import uuid

from .errors import JobTimeout, KevalError
from .results import Result, Submission
from .transport import RetryPolicy, Transport

POLL_WAIT_S = 30.0  # one long poll's wait (GET /v1/jobs/{id}?wait=S); the server caps it at 3600
EARLY_POLL_PAUSE_S = 1.0  # before polling again a job whose long poll came back at once, unfinished


def as_submission(item) -> Submission:
    if isinstance(item, Submission):
        return item
    if isinstance(item, dict):
        unknown = set(item) - {"task", "code", "key", "id", "preset"}
        if unknown or "task" not in item or "code" not in item:
            raise KevalError(f"a submission is {{task, code, key?, id?, preset?}}, got fields {sorted(item)}",
                             field="submission")
        return Submission(**item)
    raise KevalError(f"a submission is a Submission or a dict, got {type(item).__name__}", field="submission")


def with_key(submission: Submission) -> Submission:
    """A submission without a key gets a fresh one, made once: every retry of it sends the same."""
    if submission.key:
        return submission
    return Submission(submission.task, submission.code, f"keval-client-{uuid.uuid4().hex}", submission.id,
                      submission.preset)


class KevalClient:
    def __init__(self, url: str, token: str | None = None, timeout_s: float = 120.0,
                 retry: RetryPolicy = RetryPolicy(), preset: str | None = None, sleep=time.sleep):
        self.transport = Transport(url, token, timeout_s, retry, sleep)
        self.preset = preset  # the default preset of submissions that name none (None: the server's)

    def _prepared(self, item) -> Submission:
        s = with_key(as_submission(item))
        if s.preset is None and self.preset is not None:
            s = Submission(s.task, s.code, s.key, s.id, self.preset)
        return s

    def health(self) -> dict:
        return self.transport.call("GET", "/v1/health")[1]

    def submit(self, item) -> str:
        """Queues one candidate; returns its job id (the same id for the same key)."""
        s = self._prepared(item)
        status, answer = self.transport.call("POST", "/v1/evaluate?wait=0", s.body(), {"Idempotency-Key": s.key})
        return str(answer["id"])

    def submit_batch(self, items) -> list:
        """Queues many candidates in one request; job ids in their order. A refused item (a key
        used before for another request) raises, naming its index."""
        submissions = [self._prepared(i) for i in items]
        if not submissions:
            return []
        _, answer = self.transport.call("POST", "/v1/evaluate/batch", {"submissions": [s.body() for s in submissions]})
        ids = []
        for index, job in enumerate(answer["jobs"]):
            if "id" not in job:
                raise KevalError(f"submissions[{index}]: {job.get('error', 'refused')}", 409,
                                 job.get("field", f"submissions[{index}]"))
            ids.append(str(job["id"]))
        return ids

    def poll(self, job_id: str, wait_s: float = 0.0) -> Result:
        """The job as it is now; with `wait_s`, the server holds the request until it ends or
        that time passes (a long poll)."""
        path = f"/v1/jobs/{urllib.parse.quote(job_id, safe='')}" + (f"?wait={wait_s:g}" if wait_s > 0 else "")
        return Result.from_answer(self.transport.call("GET", path, extra_timeout_s=wait_s)[1])

    def wait(self, job_ids, timeout_s: float | None = None) -> list:
        """Every job's finished result, in the order given; JobTimeout past `timeout_s`."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        results = {}
        while len(results) < len(job_ids):
            for job_id in job_ids:
                if job_id in results:
                    continue
                left = POLL_WAIT_S if deadline is None else min(POLL_WAIT_S, deadline - time.monotonic())
                asked = time.monotonic()
                result = self.poll(job_id, wait_s=max(0.0, left))
                if result.finished:
                    results[job_id] = result
                elif time.monotonic() - asked < min(EARLY_POLL_PAUSE_S, left):
                    # the server had no thread to spare for a long poll and answered at once
                    time.sleep(min(EARLY_POLL_PAUSE_S, max(0.0, left)))
                elif deadline is not None and time.monotonic() >= deadline:
                    raise JobTimeout(f"{len(job_ids) - len(results)} of {len(job_ids)} jobs unfinished after "
                                     f"{timeout_s:g} s (first: {job_id}, {result.state})", field="timeout_s")
        return [results[j] for j in job_ids]

    def evaluate(self, item, timeout_s: float | None = None) -> Result:
        return self.wait([self.submit(item)], timeout_s)[0]

    def evaluate_batch(self, items, timeout_s: float | None = None) -> list:
        return self.wait(self.submit_batch(items), timeout_s)
