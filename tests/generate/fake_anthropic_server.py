"""A small Anthropic Messages API server for the tests: a real process on a real socket, the
same config as fake_openai_server.py (routes, faults, delay_s, stream). It checks what the real
API insists on (x-api-key and anthropic-version headers, max_tokens, no system message in
`messages`, no empty message), answers with `text` blocks (and a `thinking` block when the route has `reasoning`),
and streams the API's events (message_start, content_block_start/delta/stop, message_delta,
message_stop) when asked to. Answers are picked by request ordinal among routes' responses, as
the API takes no seed: response number (ordinal - 1) % len(responses).

    python fake_anthropic_server.py --config C.json --port-file PORT [--log REQUESTS.jsonl]
"""
import argparse
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_openai_server import State

MODEL = "claude-fake"


def make_handler(state: State):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, code: int, body: dict, headers: dict | None = None):
            raw = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)

        def error(self, code: int, kind: str, message: str, headers=None):
            return self.reply(code, {"type": "error", "error": {"type": kind, "message": message}}, headers)

        def do_POST(self):
            if not self.path.endswith("/v1/messages"):
                return self.error(404, "not_found_error", "no such route")
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            ordinal = state.next_ordinal()
            fault = state.faults.get(ordinal)
            state.log({"ordinal": ordinal, "fault": fault, "settings": {k: v for k, v in request.items() if k != "messages"},
                       "headers": {k.lower(): v for k, v in self.headers.items()}, "messages": request["messages"]})
            if fault == "rate_limit":
                return self.error(429, "rate_limit_error", "slow down", {"Retry-After": "1"})
            if fault == "overloaded":
                return self.error(529, "overloaded_error", "overloaded")
            if not self.headers.get("x-api-key") or self.headers.get("anthropic-version") != "2023-06-01":
                return self.error(401, "authentication_error", "x-api-key and anthropic-version are required")
            if request.get("model") != MODEL:
                return self.error(404, "not_found_error", f"model: {request.get('model')}")
            if not isinstance(request.get("max_tokens"), int):
                return self.error(400, "invalid_request_error", "max_tokens: Field required")
            if any(m.get("role") not in ("user", "assistant") for m in request["messages"]):
                return self.error(400, "invalid_request_error", "messages: roles must be user or assistant")
            if any(not m.get("content") for m in request["messages"]):
                return self.error(400, "invalid_request_error", "messages: text content blocks must be non-empty")
            prompt = request["messages"][-1]["content"]
            route = next((r for r in state.routes if r["match"] in prompt), None)
            if route is None:
                return self.error(400, "invalid_request_error", "no recorded completion for this prompt")
            text = route["responses"][(ordinal - 1) % len(route["responses"])]
            blocks = ([{"type": "thinking", "thinking": route["reasoning"], "signature": "sig"}]
                      if route.get("reasoning") else []) + [{"type": "text", "text": text}]
            usage = {"input_tokens": (len(prompt) + len(request.get("system", ""))) // 4, "output_tokens": len(text) // 4}
            if request.get("stream") and state.streams:
                return self.stream(blocks, usage)
            return self.reply(200, {"id": f"msg_{ordinal}", "type": "message", "role": "assistant", "model": MODEL,
                                    "content": blocks, "stop_reason": "end_turn", "usage": usage})

        def stream(self, blocks: list, usage: dict):
            events = [("message_start", {"type": "message_start", "message": {
                "id": "msg", "type": "message", "role": "assistant", "content": [], "model": MODEL,
                "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1}}}), ("ping", {"type": "ping"})]
            for i, block in enumerate(blocks):
                kind, field, delta = (("thinking", "thinking", "thinking_delta") if block["type"] == "thinking"
                                      else ("text", "text", "text_delta"))
                events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                       "content_block": {"type": kind, field: ""}}))
                events += [("content_block_delta", {"type": "content_block_delta", "index": i,
                                                    "delta": {"type": delta, field: block[field][j:j + 9]}})
                           for j in range(0, len(block[field]), 9)]
                events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
            events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                          "usage": {"output_tokens": usage["output_tokens"]}}),
                       ("message_stop", {"type": "message_stop"})]
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.end_headers()
            for name, data in events:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

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
    os.replace(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
