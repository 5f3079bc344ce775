"""keval generate: K samples per task from an OpenAI-compatible server, stored as they arrive
(sample_store), then written as the submissions JSONL that `keval run` reads."""
import concurrent.futures
import json
import os
import sys
import time

from .chat_client import ChatClient
from .corpus_sources import checkout_documents, golden_documents, peer_documents
from .errors import GenerateError
from .prompt_builder import build_prompt
from .retrieval import Corpus
from .sample_store import SampleStore
from .task_text import all_task_names, load_tasks


TRITON_GOLDENS = ("keval", "tritonbench-g")


def submission_id(task: str, model: str, sample: int) -> str:
    return f"{task}@{model}#{sample}"


def cost_of(prompt_tokens, completion_tokens, price_prompt, price_completion):
    """US dollars from prices per million tokens; None unless both prices and counts are known."""
    if price_prompt is None or price_completion is None or prompt_tokens is None or completion_tokens is None:
        return None
    return (prompt_tokens * price_prompt + completion_tokens * price_completion) / 1e6


def submission_line(row: dict) -> dict:
    return {"task": row["task"], "code": row["response"],
            "id": submission_id(row["task"], row["model"], row["sample"]),
            "generation": {"model": row["model"], "sample": row["sample"], "template": row["template"],
                           "prompt_hash": row["prompt_hash"], "retrieved": row["retrieved"] or None,
                           "prompt_tokens": row["prompt_tokens"], "completion_tokens": row["completion_tokens"],
                           "latency_s": row["latency_s"], "cost_usd": row["cost_usd"],
                           "finish_reason": row["finish_reason"], "settings": json.loads(row["settings"])}}


def write_jsonl(path: str, lines: list):
    temporary = path + ".partial"
    with open(temporary, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    os.replace(temporary, path)


def api_key_from(variable: str, explicit: bool) -> str:
    value = os.environ.get(variable, "")
    if explicit and not value:
        raise GenerateError("--api-key-env", f"environment variable {variable} is not set")
    return value


def generate(args) -> dict:
    names = [n for n in args.task_names.split(",") if n] if args.task_names else all_task_names(args.suite_folder)
    if not names:
        raise GenerateError("--tasks", "no task selected")
    every = load_tasks(args.suite_folder, all_task_names(args.suite_folder))
    by_name = {t.name: t for t in every}
    tasks = [by_name[n] for n in names if n in by_name]
    missing = [n for n in names if n not in by_name]
    if missing:
        raise GenerateError(args.suite_folder, f"no task folder for {', '.join(missing)}")
    # Only these suites' goldens are Triton solutions: KernelBench's golden.py is loader glue,
    # KernelBenchX's and TritonBench-T's are PyTorch references (their one-shot needs a corpus).
    documents = golden_documents(every) if args.suite_kind in TRITON_GOLDENS else []
    documents += peer_documents(args.corpus) if args.corpus else []
    if args.peer_checkout and not args.corpus:
        documents += checkout_documents(args.peer_checkout)
    corpus = Corpus(documents)
    prompts = {t.name: build_prompt(args.suite_kind, t, args.prompt, corpus) for t in tasks}

    client = ChatClient(args.base_url, args.model, api_key_from(args.api_key_env, args.api_key_env_given),
                        temperature=args.temperature, max_tokens=args.max_tokens, timeout_s=args.request_timeout,
                        max_attempts=args.max_attempts)
    store = SampleStore(args.store)
    started = time.monotonic()
    if getattr(args, "turns", 1) > 1:
        from .refine import refine
        return refine(args, tasks, prompts, client, store, started)
    plan = [(t.name, i, prompts[t.name]) for t in tasks for i in range(args.samples)]
    rows, requested = request_all(args, client, store, plan,
                                  f"{len(plan)} samples ({len(tasks)} tasks x {args.samples})")
    write_jsonl(args.out, [submission_line(r) for r in rows])
    store.close()
    return {"out": args.out, "store": args.store, "samples": len(rows), "requested": requested,
            **usage_totals(rows), "wall_s": round(time.monotonic() - started, 3),
            "prompt_template": next(iter(prompts.values())).template if prompts else None}


def resume_settings(args, template: str) -> str:
    """The resume key's part beyond model, prompt and sample: every other setting that changes
    an answer (canonical JSON, so equal settings are equal text)."""
    return json.dumps({"base_url": args.base_url.rstrip("/"), "temperature": args.temperature,
                       "max_tokens": args.max_tokens, "template": template, "prompt_mode": args.prompt},
                      sort_keys=True)


def usage_totals(rows: list) -> dict:
    tokens = sum((r["prompt_tokens"] or 0) + (r["completion_tokens"] or 0) for r in rows)
    costs = [r["cost_usd"] for r in rows if r["cost_usd"] is not None]
    return {"tokens": tokens, "cost_usd": sum(costs) if costs else None}


def request_all(args, client, store, plan: list, what: str) -> tuple:
    """Asks for every (task, sample, prompt) of `plan` that the store lacks, storing each answer
    as it arrives; returns the stored rows in plan order and how many were requested."""
    key = {(name, i): resume_settings(args, prompt.template) for name, i, prompt in plan}
    todo = [(name, i, prompt) for name, i, prompt in plan
            if not store.has(args.model, key[name, i], prompt.hash, i)]
    print(f"keval generate: {what}, {len(plan) - len(todo)} already stored, {len(todo)} to request",
          file=sys.stderr, flush=True)

    def one(name: str, sample: int, prompt):
        completion = client.complete(prompt.messages, seed=sample)
        cost = cost_of(completion.prompt_tokens, completion.completion_tokens, args.price_prompt,
                       args.price_completion)
        store.put(args.model, key[name, sample], prompt, name, sample, completion, cost)
        return name, sample, completion

    done = 0
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency)
    try:
        pending = {pool.submit(one, name, i, prompt) for name, i, prompt in todo}
        while pending:
            finished, pending = concurrent.futures.wait(pending, timeout=0.5,
                                                        return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                name, sample, completion = future.result()
                done += 1
                print(f"[{done}/{len(todo)}] {submission_id(name, args.model, sample)} "
                      f"{completion.latency_s:.1f}s {completion.completion_tokens} tokens"
                      + (f" ({completion.attempts} attempts)" if completion.attempts > 1 else ""),
                      file=sys.stderr, flush=True)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    rows = [store.get(args.model, key[name, i], prompt.hash, i) for name, i, prompt in plan]
    return rows, len(todo)
