"""Typed answers of keval serve: a job's result (GET /v1/jobs/{id}, or POST /v1/evaluate when it
finished within its wait), with its verdict, speedup and interval, hack flags and rewards."""
from dataclasses import dataclass, field

from .shaping import reward_of

FINAL_STATES = ("done", "failed", "cancelled")


@dataclass(frozen=True)
class Speedup:
    """The reference's time over the candidate's (median), and its 95% interval when measured."""
    value: float
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Submission:
    """One candidate to judge. `key` is the idempotency key: the same key always names the same
    job, so a retry (by this client or by a restarted trainer) never judges it twice."""
    task: str
    code: str
    key: str | None = None
    id: str | None = None
    preset: str | None = None

    def body(self) -> dict:
        body = {"task": self.task, "code": self.code}
        for name in ("key", "id", "preset"):
            if getattr(self, name) is not None:
                body[name] = getattr(self, name)
        return body


@dataclass(frozen=True)
class Result:
    job_id: str
    state: str                      # queued, running, done, failed, cancelled
    task: str = ""
    submission_id: str = ""
    key: str | None = None
    verdict: str | None = None      # pass or one failure class (docs/judging.md); None until done
    reasons: tuple = ()
    speedup: Speedup | None = None  # None: not measured (a failure, --no-timing, a preset without timing)
    time_ms: float | None = None
    ref_time_ms: float | None = None
    hack_flags: tuple = ()
    server_reward: float | None = None   # under the server's --reward-config, when it has one
    server_reward_rung: str | None = None
    error: str | None = None        # why a job is `failed` (a harness fault, not a verdict)
    seconds: float | None = None
    raw: dict = field(default_factory=dict, compare=False, repr=False)  # the answer as sent

    @property
    def finished(self) -> bool:
        return self.state in FINAL_STATES

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def reward(self, shaping: str = "binary") -> float:
        """The reward under a named shaping (shaping.py lists them; "server" is the server's)."""
        return reward_of(self, shaping)

    @classmethod
    def from_answer(cls, answer: dict) -> "Result":
        speedup = None
        if isinstance(answer.get("speedup"), (int, float)):
            ci = answer.get("speedup_ci") if isinstance(answer.get("speedup_ci"), list) else [None, None]
            speedup = Speedup(float(answer["speedup"]), *(None if v is None else float(v) for v in ci[:2]))
        return cls(job_id=str(answer.get("id", "")), state=str(answer.get("state", "")),
                   task=answer.get("task", ""), submission_id=answer.get("submission_id", ""),
                   key=answer.get("key"), verdict=answer.get("verdict"),
                   reasons=tuple(answer.get("reasons") or ()), speedup=speedup,
                   time_ms=answer.get("time_ms"), ref_time_ms=answer.get("ref_time_ms"),
                   hack_flags=tuple(answer.get("hack_flags") or ()), server_reward=answer.get("reward"),
                   server_reward_rung=answer.get("reward_rung"), error=answer.get("error"),
                   seconds=answer.get("seconds"), raw=answer)
