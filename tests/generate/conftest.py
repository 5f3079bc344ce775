"""Generation tests: the real `keval` binary, the real runner (CPU interpreter) and a real HTTP
server (fake_openai_server.py) that replays recorded completions and faults. No model, no
network beyond 127.0.0.1, no fetched data."""
import json
import os
import pathlib
import subprocess
import sys
import time
import tomllib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
SUITE = REPO / "suites" / "keval"
SERVER = pathlib.Path(__file__).with_name("fake_openai_server.py")
ANTHROPIC_SERVER = pathlib.Path(__file__).with_name("fake_anthropic_server.py")
sys.path.insert(0, str(REPO / "runner"))

CORE = ["vector_add", "relu", "softmax", "layer_norm", "rms_norm", "row_sum", "matmul", "bias_gelu",
        "cross_entropy", "cumsum", "rope", "w8a16_matmul"]
FAILING = {"rope", "w8a16_matmul"}  # their recorded answers never pass


def run_keval(*args, check=True, timeout=600):
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([KEVAL, *map(str, args)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"keval {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def task_config(name: str) -> dict:
    with open(SUITE / name / "task.toml", "rb") as f:
        return tomllib.load(f)


def recorded_routes() -> list:
    """Per core task four answers, picked by the request's seed (the sample index): a passing
    task answers golden, golden, an empty code block, golden (3 of 4 pass); a failing one
    alternates code that does not compile with the empty block. Equal answers are judged once."""
    routes = []
    for name in CORE:
        config = task_config(name)
        golden = (SUITE / name / "golden.py").read_text()
        good = f"Here is the kernel.\n```python\n{golden}```\n"
        empty = "I cannot write this one.\n```python\n```\n"
        broken = f"```python\ndef {config['entry']}(x:\n    return x\n```\n"
        routes.append({"match": "    " + config["signature"],
                       "responses": [broken, empty, broken, empty] if name in FAILING else [good, good, empty, good]})
    return routes


class FakeServer:
    def __init__(self, folder: pathlib.Path, config: dict, script: pathlib.Path = SERVER):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        (folder / "server.json").write_text(json.dumps(config))
        self.log = folder / "requests.jsonl"
        port_file = folder / "port"
        self.process = subprocess.Popen([sys.executable, str(script), "--config", str(folder / "server.json"),
                                         "--port-file", str(port_file), "--log", str(self.log)])
        deadline = time.monotonic() + 20
        while not port_file.exists():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError("fake server did not start")
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{port_file.read_text()}/v1"

    def requests(self) -> list:
        return [json.loads(line) for line in self.log.read_text().splitlines()] if self.log.exists() else []

    def stop(self):
        self.process.kill()
        self.process.wait()


@pytest.fixture
def fake_server(tmp_path):
    servers = []

    def start(config: dict, script: pathlib.Path = SERVER) -> FakeServer:
        server = FakeServer(tmp_path / f"server-{len(servers)}" if servers else tmp_path, config, script)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
