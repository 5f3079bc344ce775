"""keval mutate's Python side: mutants of a task's golden Triton kernel, made the ways models get
kernels wrong (docs/mutation.md), and the report of which of them the task's cases kill.

Never part of a judged job and outside runner/keval_runner, whose files the evaluation key
hashes: a new operator must not make every stored result stale."""
