"""Asking for samples and writing them out, shared by one-shot generation (generate.py) and
refinement turns (refine.py): the resume key, the request pool, the submissions JSONL."""
import concurrent.futures
import dataclasses
import json
import os
import sys


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
                           "finish_reason": row["finish_reason"], "reasoning": row.get("reasoning"),
                           "settings": json.loads(row["settings"])}}

def write_jsonl(path: str, lines: list):
    temporary = path + ".partial"
    with open(temporary, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    os.replace(temporary, path)

def resume_settings(args, template: str) -> str:
    """The resume key's part beyond model, prompt and sample: every other setting that changes
    an answer (canonical JSON, so equal settings are equal text)."""
    settings = {"base_url": args.base_url.rstrip("/"), "temperature": args.temperature,
                "max_tokens": args.max_tokens, "template": template, "prompt_mode": args.prompt}
    settings.update(getattr(args, "key_fields", None) or {})  # request_settings.key_fields
    return json.dumps(settings, sort_keys=True)

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

    def one(name: str, samples: list, prompt):
        """One request for `samples` (several with --n): each answer stored as its own sample,
        the request's tokens and cost shared out among them."""
        completion = client.complete(prompt.messages, seed=samples[0], n=len(samples))
        choices = completion.choices or (completion,)
        for j, (sample, choice) in enumerate(zip(samples, choices)):
            part = share(completion, j, len(samples), choice)
            cost = cost_of(part.prompt_tokens, part.completion_tokens, args.price_prompt, args.price_completion)
            store.put(args.model, key[name, sample], prompt, name, sample, part, cost)
        return name, samples, completion

    done = 0
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency)
    try:
        pending = {pool.submit(one, name, samples, prompt) for name, samples, prompt in batches(todo, getattr(args, "n", 1))}
        while pending:
            finished, pending = concurrent.futures.wait(pending, timeout=0.5,
                                                        return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                name, samples, completion = future.result()
                done += len(samples)
                print(f"[{done}/{len(todo)}] {submission_id(name, args.model, samples[0])}"
                      + (f" (+{len(samples) - 1} in one request)" if len(samples) > 1 else "")
                      + f" {completion.latency_s:.1f}s {completion.completion_tokens} tokens"
                      + (f" ({completion.attempts} attempts)" if completion.attempts > 1 else ""),
                      file=sys.stderr, flush=True)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return stored_rows(args, store, plan), len(todo)


def batches(todo: list, n: int) -> list:
    """(task, [sample indices], prompt): up to n samples of one prompt per request."""
    grouped = []
    for name, i, prompt in todo:
        last = grouped[-1] if grouped else None
        if last and last[0] == name and last[2].hash == prompt.hash and len(last[1]) < n and last[1][-1] == i - 1:
            last[1].append(i)
        else:
            grouped.append((name, [i], prompt))
    return grouped


def share(completion, j: int, n: int, choice):
    """The j-th of n answers of one request, with its share of the request's tokens (the
    remainder on the first, so the shares add up to the request's usage)."""
    def part(total):
        return None if total is None else total // n + (total % n if j == 0 else 0)
    return dataclasses.replace(completion, text=choice.text, reasoning=choice.reasoning,
                               finish_reason=choice.finish_reason, prompt_tokens=part(completion.prompt_tokens),
                               completion_tokens=part(completion.completion_tokens), choices=())


def stored_rows(args, store, plan: list) -> list:
    """The stored rows of `plan`, in its order; those not stored (yet) are left out."""
    rows = [store.get(args.model, resume_settings(args, prompt.template), prompt.hash, i) for _, i, prompt in plan]
    return [r for r in rows if r is not None]
