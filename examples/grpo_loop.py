"""A GRPO-style loop against keval serve: each step samples K candidates per task from an
OpenAI-compatible server, has keval judge them all as one batch (keval_client, asyncio), turns
the results into rewards under a named shaping, and prints the step's mean reward and each
group's advantages (reward minus the group's mean, over its standard deviation). The policy
update is the trainer's own; this loop stops where it would start.

    pip install ./clients/python
    keval serve --suite suites/keval --port 8000 --device cpu --no-timing &
    python examples/grpo_loop.py --keval http://127.0.0.1:8000 --model-url http://127.0.0.1:8001/v1 \
        --model my-model --suite suites/keval --tasks vector_add,relu --k 4 --steps 2

Each candidate's idempotency key names its step, task and index: a trainer restarted mid-step
sends the same keys again and gets the same jobs, judged once."""
import argparse
import asyncio
import concurrent.futures
import json
import pathlib
import statistics
import sys
import tomllib
import urllib.request

try:
    import keval_client
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "clients" / "python"))
    import keval_client

from keval_client import AsyncKevalClient, Submission


def prompt_of(suite: str | None, task: str) -> str:
    """The task's own instruction and signature when the suite folder is at hand."""
    if suite:
        with open(pathlib.Path(suite) / task / "task.toml", "rb") as f:
            config = tomllib.load(f)
        return (f"task: {task}\n{config['instruction']}\nWrite a Triton kernel with this entry point:\n"
                f"    {config['signature']}\nAnswer with one ```python block.")
    return f"task: {task}\nWrite a Triton kernel for the keval task {task}. Answer with one ```python block."


def sample(model_url: str, model: str, prompt: str, seed: int, temperature: float, api_key: str) -> str:
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "seed": seed,
            "temperature": temperature}
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(model_url.rstrip("/") + "/chat/completions", json.dumps(body).encode(),
                                     headers, method="POST")
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.load(response)["choices"][0]["message"]["content"] or ""


def advantages(rewards: list) -> list:
    mean = statistics.fmean(rewards)
    spread = statistics.pstdev(rewards)
    return [(r - mean) / (spread + 1e-6) for r in rewards]


async def step(args, client, pool, step_index: int, tasks: list) -> dict:
    loop = asyncio.get_running_loop()
    jobs = [(task, i) for task in tasks for i in range(args.k)]
    # The seed makes each candidate reproducible; a real trainer samples from its current policy.
    answers = await asyncio.gather(*(loop.run_in_executor(
        pool, sample, args.model_url, args.model, prompt_of(args.suite, task), step_index * args.k + i,
        args.temperature, args.api_key) for task, i in jobs))
    submissions = [Submission(task, code, key=f"{args.run}/step{step_index}/{task}/{i}", id=f"{task}#{i}",
                              preset=args.preset)
                   for (task, i), code in zip(jobs, answers)]
    results = await client.evaluate_batch(submissions, timeout_s=args.timeout)
    rewards = [r.reward(args.shaping) for r in results]
    groups = {task: [rw for (t, _), rw in zip(jobs, rewards) if t == task] for task in tasks}
    return {"step": step_index, "mean_reward": statistics.fmean(rewards),
            "passes": sum(r.passed for r in results), "candidates": len(results),
            "verdicts": [r.verdict for r in results],
            "advantages": {task: [round(a, 3) for a in advantages(g)] for task, g in groups.items()}}


async def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--keval", required=True, help="keval serve's URL")
    p.add_argument("--token-file", help="keval serve's --token-file")
    p.add_argument("--model-url", required=True, help="an OpenAI-compatible base URL (…/v1)")
    p.add_argument("--model", required=True)
    p.add_argument("--api-key", default="")
    p.add_argument("--suite", help="the suite folder, for the tasks' instructions")
    p.add_argument("--tasks", required=True, help="comma-separated task names")
    p.add_argument("--k", type=int, default=4, help="candidates per task and step (the group)")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--shaping", default="binary", choices=sorted(keval_client.SHAPINGS))
    p.add_argument("--preset", default=None, help="keval serve's preset (default: the server's)")
    p.add_argument("--run", default="grpo", help="prefix of the idempotency keys")
    p.add_argument("--timeout", type=float, default=1800, help="seconds a step's judging may take")
    p.add_argument("--json", help="also write every step's figures here")
    args = p.parse_args()
    tasks = [t for t in args.tasks.split(",") if t]
    token = pathlib.Path(args.token_file).read_text().strip() if args.token_file else None
    steps = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        async with AsyncKevalClient(args.keval, token) as client:
            for s in range(args.steps):
                figures = await step(args, client, pool, s, tasks)
                steps.append(figures)
                print(f"step {s}: mean reward {figures['mean_reward']:.4f} ({args.shaping}), "
                      f"{figures['passes']}/{figures['candidates']} pass, advantages {figures['advantages']}",
                      flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(steps, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
