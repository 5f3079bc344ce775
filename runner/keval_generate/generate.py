"""keval generate: K samples per task from an OpenAI-compatible server or the Anthropic Messages
API (providers), stored as they arrive (sample_store), then written as the submissions JSONL
that `keval run` reads."""
import os
import sys
import time

from .chat_client import ChatClient
from .corpus_sources import checkout_documents, golden_documents, peer_documents
from .errors import GenerateError
from .price_table import prices_for
from .prompt_builder import build_prompt
from .providers import provider_of
from .request_settings import key_fields, settings_from
from .retrieval import Corpus
from .sample_store import SampleStore
from .samples import request_all, stored_rows, submission_line, usage_totals, write_jsonl
from .task_text import all_task_names, load_tasks


TRITON_GOLDENS = ("keval", "tritonbench-g")


def api_key_from(variable: str, explicit: bool) -> str:
    value = os.environ.get(variable, "")
    if explicit and not value:
        raise GenerateError("--api-key-env", f"environment variable {variable} is not set")
    return value


def write_what_finished(args, store, plan: list):
    """On an interruption: --out gets the samples stored so far, in plan order."""
    rows = stored_rows(args, store, plan)
    write_jsonl(args.out, [submission_line(r) for r in rows])
    print(f"keval generate: stopped; {len(rows)} of {len(plan)} samples written to {args.out}",
          file=sys.stderr, flush=True)


def make_client(args) -> ChatClient:
    """The client of the model's provider, with every request setting; sets args.key_fields (the
    resume key's share of them) and the prices."""
    provider = provider_of(args.model)
    settings = settings_from(args)
    if settings.n > 1 and provider.name == "anthropic":
        raise GenerateError("--n", "the Anthropic Messages API answers one sample per request; give --n 1")
    if settings.thinking_budget is not None and provider.name != "anthropic":
        raise GenerateError("--thinking-budget", "only the Anthropic Messages API takes it (--reasoning-effort "
                                                 "is the OpenAI one)")
    if settings.reasoning_effort is not None and provider.name == "anthropic":
        raise GenerateError("--reasoning-effort", "the Anthropic Messages API takes --thinking-budget instead")
    if args.prices:
        if args.price_prompt is not None or args.price_completion is not None:
            raise GenerateError("--prices", "give the price table or --price-prompt/--price-completion, not both")
        args.price_prompt, args.price_completion = prices_for(args.prices, args.model, provider.model)
    max_tokens = (settings.max_tokens or provider.api.MAX_TOKENS_DEFAULT) if provider.name == "anthropic" \
        else settings.max_tokens
    args.key_fields = key_fields(settings, provider, max_tokens, args.system_prompt)
    variable = args.api_key_env or provider.api.KEY_VARIABLE
    return ChatClient(args.base_url, provider.model, api_key_from(variable, args.api_key_env_given),
                      timeout_s=args.request_timeout, max_attempts=args.max_attempts, api=provider.api,
                      settings=settings)


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
    prompts = {t.name: build_prompt(args.suite_kind, t, args.prompt, corpus, args.template, args.system_prompt)
               for t in tasks}
    client = make_client(args)
    store = SampleStore(args.store)
    started = time.monotonic()
    if getattr(args, "turns", 1) > 1:
        from .refine import refine
        return refine(args, tasks, prompts, client, store, started)
    plan = [(t.name, i, prompts[t.name]) for t in tasks for i in range(args.samples)]
    try:
        rows, requested = request_all(args, client, store, plan,
                                      f"{len(plan)} samples ({len(tasks)} tasks x {args.samples})")
    except KeyboardInterrupt:
        write_what_finished(args, store, plan)
        raise
    write_jsonl(args.out, [submission_line(r) for r in rows])
    store.close()
    return {"out": args.out, "store": args.store, "samples": len(rows), "requested": requested,
            **usage_totals(rows), "wall_s": round(time.monotonic() - started, 3),
            "prompt_template": next(iter(prompts.values())).template if prompts else None,
            "settings": args.key_fields, "stream": args.stream}
