"""A small OpenAI-compatible chat-completions server for the tests: a real process on a real
socket that replays recorded completions, and the faults a real server shows.

Config (JSON): {
  "routes": [{"match": "substring of the user message", "responses": ["text", ...]}, ...],
  "faults": {"3": "rate_limit", "5": "server_error", "7": "broken_json", "9": "no_choices"},
  "delay_s": 0.0 }
A request is answered with the first route whose `match` is in its last message (and whose
optional `also` is in some message: a refinement turn's feedback names no task), response
number `seed % len(responses)` (the client sends the sample index as `seed`); a response of
null is answered as `content: null` (a reasoning model out of tokens). `faults` maps the
request's ordinal (1-based, over the server's life) to a fault answered instead: 429 with
Retry-After: 1, 500, a body that is not JSON, or JSON without choices.
A route's optional `reasoning` is sent as `reasoning_content`. A request with `n` gets n choices
(responses seed, seed+1, ...); one with `stream: true` gets server-sent deltas (a few characters
each, usage in the last chunk) unless the config says `"stream": false` (a server that does not
stream). The log keeps each request's settings (every field but the messages) and its headers.

    python fake_openai_server.py --config C.json --port-file PORT [--log REQUESTS.jsonl]
"""
import argparse
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, config: dict, log_path: str | None):
        self.routes = config["routes"]
        self.faults = {int(k): v for k, v in config.get("faults", {}).items()}
        self.delay_s = float(config.get("delay_s", 0.0))
        self.streams = bool(config.get("stream", True))
        self.log_path = log_path
        self.lock = threading.Lock()
        self.count = 0

    def next_ordinal(self) -> int:
        with self.lock:
            self.count += 1
            return self.count

    def log(self, entry: dict):
        if self.log_path:
            with self.lock, open(self.log_path, "a") as f:
                f.write(json.dumps(entry) + "\n")


def make_handler(state: State):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, code: int, body: bytes, headers: dict | None = None):
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            try:
                self.wfile.write(body)
            except BrokenPipeError:
                pass  # the client was killed mid-request: what the crash test does

        def do_POST(self):
            if not self.path.endswith("/chat/completions"):
                return self.reply(404, b'{"error": {"message": "no such route"}}')
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            ordinal = state.next_ordinal()
            fault = state.faults.get(ordinal)
            prompt = request["messages"][-1]["content"]
            everything = "\n".join(m["content"] or "" for m in request["messages"])
            route = next((r for r in state.routes if r["match"] in prompt and r.get("also", "") in everything), None)
            seed = int(request.get("seed") or 0)
            state.log({"ordinal": ordinal, "fault": fault, "route": route["match"] if route else None, "seed": seed,
                       "settings": {k: v for k, v in request.items() if k != "messages"},
                       "headers": {k.lower(): v for k, v in self.headers.items()},
                       "messages": len(request["messages"]), "prompt_sha": hashlib.sha256(
                           json.dumps(request["messages"], sort_keys=True).encode()).hexdigest()})
            time.sleep(state.delay_s)
            if fault == "rate_limit":
                return self.reply(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "1"})
            if fault == "server_error":
                return self.reply(500, b'{"error": {"message": "overloaded"}}')
            if fault == "broken_json":
                return self.reply(200, b'{"choices": [{"message": {"content": "trunc')
            if fault == "no_choices":
                return self.reply(200, b'{"object": "chat.completion"}')
            if request.get("model") != "fake-model":
                return self.reply(404, json.dumps({"error": {"message": f"model {request.get('model')} not found"}}).encode())
            if route is None:
                return self.reply(400, b'{"error": {"message": "no recorded completion for this prompt"}}')
            n = int(request.get("n") or 1)
            texts = [route["responses"][(seed + j) % len(route["responses"])] for j in range(n)]
            usage = {"prompt_tokens": len(prompt) // 4, "completion_tokens": sum(len(t or "") for t in texts) // 4}
            if request.get("stream") and state.streams:
                return self.stream(texts, route.get("reasoning"), usage)
            body = {"id": f"cmpl-{ordinal}", "object": "chat.completion", "model": request["model"],
                    "choices": [{"index": j, "message": {"role": "assistant", "content": text,
                                                         **({"reasoning_content": route["reasoning"]}
                                                            if route.get("reasoning") else {})},
                                 "finish_reason": "stop"} for j, text in enumerate(texts)],
                    "usage": dict(usage, total_tokens=usage["prompt_tokens"] + usage["completion_tokens"])}
            return self.reply(200, json.dumps(body).encode())

        def stream(self, texts: list, reasoning, usage: dict):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            chunks = [{"choices": [{"index": j, "delta": {"reasoning_content": reasoning}}]}
                      for j in range(len(texts)) if reasoning]
            for j, text in enumerate(texts):
                text = text or ""
                chunks += [{"choices": [{"index": j, "delta": {"content": text[i:i + 7]}}]}
                           for i in range(0, len(text), 7)]
                chunks.append({"choices": [{"index": j, "delta": {}, "finish_reason": "stop"}]})
            chunks.append({"choices": [], "usage": usage})
            events = [f"data: {json.dumps(c)}\n\n" for c in chunks] + [": keep-alive\n\n", "data: [DONE]\n\n"]
            try:
                for event in events:
                    self.wfile.write(event.encode())
                    self.wfile.flush()
            except BrokenPipeError:
                pass

    return Handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--log")
    args = p.parse_args()
    with open(args.config) as f:
        state = State(json.load(f), args.log)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
