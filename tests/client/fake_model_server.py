"""A local OpenAI-compatible chat server for the client tests: it answers by the request's seed,
with the task's golden (a pass), code that does not compile, or prose without code. The task is
the `task: NAME` line of the prompt.

    python fake_model_server.py SUITE PORT_FILE PASSING_SEEDS   (e.g. 0,4,5,6)"""
import http.server
import json
import pathlib
import re
import sys


def answer(suite: pathlib.Path, passing: set, prompt: str, seed: int) -> str:
    task = re.search(r"task: (\w+)", prompt).group(1)
    if seed in passing:
        return f"Here it is.\n```python\n{(suite / task / 'golden.py').read_text()}```\n"
    if seed % 2:
        return "```python\nimport triton\ndef broken(x:\n    return x\n```\n"
    return "I would fuse the loads and use a block size of 1024."


def main() -> int:
    suite, port_file, passing = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
    passing_seeds = {int(s) for s in passing.split(",") if s}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = "\n".join(m["content"] for m in body["messages"])
            text = answer(suite, passing_seeds, prompt, int(body.get("seed", 0)))
            data = json.dumps({"choices": [{"message": {"role": "assistant", "content": text},
                                            "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 10, "completion_tokens": 10}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
