"""Drives `keval serve` with N concurrent clients, as an RL trainer would: each client sends its
candidates one at a time to POST /v1/evaluate (an Idempotency-Key per candidate), polls
GET /v1/jobs/{id} when answered 202, and retries through connection errors (a server killed
and started again), so an accepted job that the server forgot shows up as lost.

usage: python bench/serve_load.py --url http://HOST:PORT [--clients 64] [--requests 4]
         [--tasks vector_add,relu,...] [--cheap-share 0.5] [--preset quick] [--token-file F]
         [--deadline 1800] [--json OUT.json]

The mix, per task: the golden (correct), a subtly broken golden (mismatch), the example
submissions of that task (examples/submissions.jsonl), and cheap broken ones (no entry, a syntax
error) for --cheap-share of the requests. Every candidate is a distinct copy (a comment in each
kernel), so each is judged anew rather than answered from keval.db. Prints judged/hour, p50 and
p99 latency of an answer (first send to result), verdict counts, lost jobs (accepted, then
unknown, or answered as another job) and those still unanswered at --deadline; exits 1 when a
job was lost, failed or unanswered. Works against a CPU-mode server too (`keval serve --device cpu`).
"""
import argparse
import json
import random
import statistics
import threading
import time
import urllib.error
import urllib.request

from common import CORE_TASKS, REPO, broken, golden_code, variant


def candidates(tasks, seed):
    """(kind, task, code) lists: full ones (judged by running) and cheap broken ones."""
    examples = [json.loads(line) for line in (REPO / "examples" / "submissions.jsonl").read_text().splitlines()]
    full, cheap = [], []
    for task in tasks:
        golden = golden_code(task)
        full.append(("golden", task, golden))
        full.append(("broken", task, broken(golden)))
        full += [("example", e["task"], e["code"]) for e in examples if e["task"] == task]
        cheap.append(("no_entry", task, golden.replace(f"def {task}(", f"def not_{task}(")))
        cheap.append(("syntax_error", task, golden + "\ndef oops(:\n"))
    random.Random(seed).shuffle(full)
    return full, cheap


class Client:
    def __init__(self, url, token, timeout=120):
        self.url = url.rstrip("/")
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.timeout = timeout

    def call(self, method, path, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={**self.headers, **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")


def judge_one(client, key, body, deadline, stats):
    """Sends until answered, polls until done. Returns (seconds, answer) or raises LostJob."""
    start = time.time()
    job_id = None
    while time.time() < deadline:
        try:
            if job_id is None:
                status, answer = client.call("POST", "/v1/evaluate?wait=60", body, {"Idempotency-Key": key})
                if status >= 400:
                    raise RuntimeError(f"{key}: HTTP {status}: {answer}")
                job_id = answer["id"]
                with stats.lock:
                    first = stats.job_of_key.setdefault(key, job_id)
                if first != job_id:
                    raise LostJob(f"{key}: accepted as job {first}, answered as job {job_id} after a retry")
            else:
                status, answer = client.call("GET", f"/v1/jobs/{job_id}?wait=60")
                if status == 404:
                    raise LostJob(f"{key}: job {job_id} was accepted, then unknown")
            if answer.get("state") in ("done", "failed", "cancelled"):
                return time.time() - start, answer
            time.sleep(0.1)
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            with stats.lock:
                stats.retries += 1
            time.sleep(0.5)  # the server is down or restarting: retry with the same key
    raise Unanswered(f"{key}: no answer before the deadline (job {job_id})")


class LostJob(Exception):
    pass


class Unanswered(Exception):
    """Not lost: the load's deadline came first."""


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []
        self.verdicts = {}
        self.lost = []
        self.unanswered = []
        self.failed = []
        self.retries = 0
        self.job_of_key = {}
        self.judged_at = []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--requests", type=int, default=4, help="candidates per client, sent one after another")
    ap.add_argument("--tasks", default=",".join(CORE_TASKS))
    ap.add_argument("--cheap-share", type=float, default=0.5, help="share of cheap broken candidates")
    ap.add_argument("--preset", default="quick")
    ap.add_argument("--token-file")
    ap.add_argument("--deadline", type=float, default=1800, help="seconds for the whole load")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    token = open(args.token_file).readline().strip() if args.token_file else ""
    full, cheap = candidates(args.tasks.split(","), args.seed)
    run = f"{time.time():.0f}-{random.Random().randrange(1 << 30):x}"
    stats = Stats()
    deadline = time.time() + args.deadline
    rng = random.Random(args.seed)
    plan = []
    for c in range(args.clients):
        for i in range(args.requests):
            n = c * args.requests + i
            kind, task, code = rng.choice(cheap) if rng.random() < args.cheap_share else full[n % len(full)]
            plan.append((c, f"{run}-{c}-{i}", {"task": task, "code": variant(code, n) + f"\n# load {run} {n}\n",
                                              "id": f"{kind}-{task}-{n}", "preset": args.preset}))

    def client_loop(c):
        client = Client(args.url, token)
        for _, key, body in (p for p in plan if p[0] == c):
            try:
                seconds, answer = judge_one(client, key, body, deadline, stats)
            except LostJob as e:
                with stats.lock:
                    stats.lost.append(str(e))
                continue
            except Unanswered as e:
                with stats.lock:
                    stats.unanswered.append(str(e))
                continue
            with stats.lock:
                if answer["state"] != "done":
                    stats.failed.append(f"{key}: {answer['state']}: {answer.get('error', '')}")
                    continue
                stats.latencies.append(seconds)
                stats.judged_at.append(time.time())
                stats.verdicts[answer["verdict"]] = stats.verdicts.get(answer["verdict"], 0) + 1

    started = time.time()
    threads = [threading.Thread(target=client_loop, args=(c,)) for c in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - started
    lat = sorted(stats.latencies)
    pct = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else None
    figures = {"clients": args.clients, "requests": len(plan), "judged": len(lat), "wall_s": round(wall, 1),
               "judged_per_hour": round(len(lat) / wall * 3600, 1) if wall > 0 else None,
               "p50_s": pct(0.50), "p99_s": pct(0.99), "mean_s": statistics.mean(lat) if lat else None,
               "lost": len(stats.lost), "failed": len(stats.failed), "unanswered": len(stats.unanswered),
               "connection_retries": stats.retries,
               "verdicts": stats.verdicts, "lost_examples": stats.lost[:5], "failed_examples": stats.failed[:5]}
    print(f"{figures['judged']} of {len(plan)} judged in {wall:.1f} s by {args.clients} clients: "
          f"{figures['judged_per_hour']} judged/hour; latency p50 {figures['p50_s'] and round(figures['p50_s'], 2)} s, "
          f"p99 {figures['p99_s'] and round(figures['p99_s'], 2)} s; lost {len(stats.lost)}, failed {len(stats.failed)}, "
          f"unanswered at the deadline {len(stats.unanswered)}, "
          f"connection retries {stats.retries}")
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.verdicts.items())))
    for line in stats.lost[:5] + stats.failed[:5] + stats.unanswered[:3]:
        print("  " + line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return 1 if stats.lost or stats.failed or stats.unanswered else 0


if __name__ == "__main__":
    raise SystemExit(main())
