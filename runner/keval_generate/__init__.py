"""keval generate: prompts, an OpenAI-compatible client, resumable sampling, code metrics."""
