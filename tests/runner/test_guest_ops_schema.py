"""The warden <-> guest channel against its schema (runner/keval_runner/protocol/guest_ops.schema.json).

Both sides are held to the one file: the ops the guest's handler table and the baselines'
process serve are the schema's, the fields each handler reads are in its op's request, every
request the warden's code builds names a known op and only its fields, and a real guest and a
real baselines' process, forked on the CPU, answer each op with a reply the schema accepts.
"""

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest
import torch

from runner_harness import RUNNER_DIR

SOURCES = os.path.join(RUNNER_DIR, "keval_runner")
SCHEMA_PATH = os.path.join(SOURCES, "protocol", "guest_ops.schema.json")
with open(SCHEMA_PATH, encoding="utf-8") as _f:
    SCHEMA = json.load(_f)
DEFS = SCHEMA["$defs"]
OPS = set(SCHEMA["properties"]["op"]["enum"])
ANNOUNCEMENTS = {name[: -len("_announcement")] for name in DEFS if name.endswith("_announcement")}


def parsed(name: str) -> ast.Module:
    with open(os.path.join(SOURCES, name), encoding="utf-8") as f:
        return ast.parse(f.read(), filename=name)


def request_fields(op: str) -> set:
    return set(DEFS[f"{op}_request"]["properties"]) - {"op"}


def validator(definition: str):
    jsonschema = pytest.importorskip("jsonschema")
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": DEFS})


def problems(definition: str, instance: dict) -> list:
    return [f"{definition}: {e.message} at {list(e.absolute_path)}" for e in validator(definition).iter_errors(instance)]


def constant_keys(node: ast.Dict) -> dict:
    return {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}


def header_reads(function: ast.AST) -> set:
    """The fields a handler reads from its request: header["x"] and header.get("x")."""
    fields = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "header" \
                and isinstance(node.slice, ast.Constant) and isinstance(node.value.ctx, ast.Load):
            fields.add(node.slice.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "header" \
                and node.args and isinstance(node.args[0], ast.Constant):
            fields.add(node.args[0].value)
    return fields - {"op"}


# -- the schema itself ------------------------------------------------------------------------

def test_the_schema_is_json_schema_and_each_op_has_its_request_and_reply():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert set(SCHEMA["x-served-by"]) == OPS
    for op in OPS:
        assert f"{op}_request" in DEFS, op
        assert (f"{op}_reply" in DEFS) == (op != "end"), op  # `end` is never answered
    assert ANNOUNCEMENTS == {"ready", "sandbox_failed", "device_failed"}


def test_the_schema_refuses_an_unknown_op_an_unknown_field_and_a_reply_without_tampering():
    jsonschema = pytest.importorskip("jsonschema")
    requests = jsonschema.Draft202012Validator(SCHEMA)
    assert requests.is_valid({"op": "drop", "key": "c/float32"})
    assert not requests.is_valid({"op": "dorp", "key": "c/float32"})
    assert not requests.is_valid({"op": "drop", "kye": "c/float32"})
    assert problems("drop_reply", {"ok": True, "tampering": []}) == []
    assert problems("drop_reply", {"ok": True})
    assert problems("drop_reply", {"ok": False, "tampering": []})  # a failure says why
    assert problems("drop_reply", {"op": "ready", "ok": True, "tampering": []})  # a reply has no op


# -- the serving side -------------------------------------------------------------------------

def guest_handlers() -> dict:
    """op -> method name, from the table Guest.__init__ builds (`end` is served by serve())."""
    for node in ast.walk(parsed("guest/guest.py")):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "handlers" for t in node.targets):
            return {k: v.attr for k, v in constant_keys(node.value).items()}
    raise AssertionError("guest.py: no handler table")


def guest_methods() -> dict:
    for node in ast.walk(parsed("guest/guest.py")):
        if isinstance(node, ast.ClassDef) and node.name == "Guest":
            return {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
    raise AssertionError("guest.py: no class Guest")


def handler_reads(methods: dict, name: str, seen=None) -> set:
    """What the handler `name` reads from its request, through the methods it hands it to."""
    seen = seen if seen is not None else set()
    seen.add(name)
    fields = header_reads(methods[name])
    for node in ast.walk(methods[name]):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods \
                and node.func.attr not in seen and any(isinstance(a, ast.Name) and a.id == "header" for a in node.args):
            fields |= handler_reads(methods, node.func.attr, seen)
    return fields


def baseline_branches() -> dict:
    """op -> the fields its branch of the baselines' process reads, from _serve's `op == "x"` tests."""
    serve = next(n for n in ast.walk(parsed("guest/baseline_guest.py")) if isinstance(n, ast.FunctionDef) and n.name == "_serve")
    branches = {}
    for node in ast.walk(serve):
        if isinstance(node, ast.If):
            tests = [node.test] + (node.test.values if isinstance(node.test, ast.BoolOp) else [])
            for test in tests:
                if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "op" \
                        and isinstance(test.comparators[0], ast.Constant):
                    branch = ast.Module(body=node.body, type_ignores=[])
                    branches[test.comparators[0].value] = header_reads(branch)
    return branches


def test_the_guest_serves_exactly_the_schemas_ops():
    served = set(guest_handlers()) | {"end"}
    assert served == {op for op in OPS if "guest" in SCHEMA["x-served-by"][op]}
    assert served == OPS  # every op has a guest to serve it


def test_the_baselines_process_serves_exactly_the_ops_the_schema_gives_it():
    assert set(baseline_branches()) == {op for op in OPS if "baseline" in SCHEMA["x-served-by"][op]}


def test_every_field_a_handler_reads_is_in_its_ops_request():
    methods = guest_methods()
    for op, name in guest_handlers().items():
        unknown = handler_reads(methods, name) - request_fields(op)
        assert not unknown, f"guest.py: Guest.{name} reads {sorted(unknown)}, not in {op}_request"
    for op, reads in baseline_branches().items():
        unknown = reads - request_fields(op)
        assert not unknown, f"baseline_guest.py: {op} reads {sorted(unknown)}, not in {op}_request"


# -- the warden's side ------------------------------------------------------------------------

def op_literals():
    """(file:line, op, fields) of every dict literal with a constant "op" in the runner, with
    the fields the same function adds to it afterwards (header["who"] = ...)."""
    for folder, _, files in os.walk(SOURCES):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), filename=path)
            where = os.path.relpath(path, SOURCES)
            functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            for node in ast.walk(tree):
                if not isinstance(node, ast.Dict):
                    continue
                keys = constant_keys(node)
                op = keys.get("op")
                if not isinstance(op, ast.Constant) or not isinstance(op.value, str):
                    continue
                fields = set(keys) - {"op"}
                fields |= later_fields(functions, node)
                yield f"{where}:{node.lineno}", op.value, fields


def later_fields(functions: list, literal: ast.Dict) -> set:
    """The keys set by `name["x"] = ...` in the function where `name = {literal}`."""
    for function in functions:
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and node.value is literal and isinstance(node.targets[0], ast.Name):
                name = node.targets[0].id
                return {t.slice.value for n in ast.walk(function) if isinstance(n, ast.Assign) for t in n.targets
                        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                        and isinstance(t.slice, ast.Constant)}
    return set()


def call_options() -> set:
    """The keyword options the warden passes to guest_call, which spreads them into `call`."""
    options = set()
    for name in ("jobs/candidate_job.py", "jobs/timing_job.py"):
        for node in ast.walk(parsed(name)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "guest_call":
                options |= {k.arg for k in node.keywords if k.arg}
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "options" \
                    and isinstance(node.value, ast.Dict):
                options |= set(constant_keys(node.value))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "options":
                options |= {k.arg for k in node.keywords if k.arg}
    return options


def test_every_request_the_runner_builds_names_a_known_op_and_only_its_fields():
    seen = set()
    for where, op, fields in op_literals():
        if op in ANNOUNCEMENTS:  # the guest's own first frame
            unknown = fields - set(DEFS[f"{op}_announcement"]["properties"])
        else:
            assert op in OPS, f"{where}: op {op!r} is not in guest_ops.schema.json"
            unknown = fields - request_fields(op)
            seen.add(op)
        assert not unknown, f"{where}: {op} with {sorted(unknown)}, not in the schema"
    # the controller's requests to the zygote have ops of their own (request.schema.json)
    assert seen >= OPS, f"ops no code sends: {sorted(OPS - seen)}"


def test_the_options_a_call_request_spreads_are_in_its_schema():
    options = call_options()
    assert {"poison", "ablate", "keep_as", "seed", "compare_kept"} <= options
    assert options <= request_fields("call"), sorted(options - request_fields("call"))


# -- real processes on the CPU ----------------------------------------------------------------

CANDIDATE = "def twice(x):\n    return 2 * x\n"


class CheckedProcess:
    """A GuestProcess whose every request and reply are held to the schema."""

    def __init__(self, process):
        self.process = process
        self.requests = pytest.importorskip("jsonschema").Draft202012Validator(SCHEMA)

    def ask(self, header: dict, fds=()) -> dict:
        assert list(self.requests.iter_errors(header)) == [], header
        reply, _, _ = self.process.ask(header, fds)
        found = problems(f"{header['op']}_reply", reply)
        assert found == [], found
        return reply


def shared(*args):
    from keval_runner.handoff.shared_call import SharedCall
    return SharedCall(args, 0)


def run_fresh(name: str, *args) -> None:
    """Runs `name` in a fresh interpreter: a process forked from this one, after earlier tests'
    torch ops started its threads, deadlocked on a lock one of them held (CI)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(RUNNER_DIR), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, __file__, name, *map(str, args)], capture_output=True, text=True,
                          timeout=110, env=env)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


@pytest.mark.timeout(120)
def test_a_real_guest_answers_every_cpu_op_as_the_schema_says(tmp_path):
    run_fresh("real_guest_answers", tmp_path)


@pytest.mark.timeout(120)
def test_the_real_baselines_process_answers_its_ops_as_the_schema_says():
    run_fresh("real_baselines_answer")


def real_guest_answers(tmp_path):
    from keval_runner.guest.guest_process import GuestProcess

    tmp_path = pathlib.Path(tmp_path)
    code = tmp_path / "twice.py"
    code.write_text(CANDIDATE)
    request = {"code_file": str(code), "entry": "twice", "device": "cpu", "timing": {}}
    process = GuestProcess.start(request, lambda: None)
    try:
        assert process.ready() is None  # the announcement GuestProcess accepted, no sandbox facts
        guest = CheckedProcess(process)
        assert guest.ask({"op": "load"})["entry"] == "twice"
        call = shared(torch.arange(4.0))
        assert guest.ask({"op": "call", "args": call.fields, "poison": True, "keep_as": "c", "seed": 1},
                         call.fds)["ok"]
        assert guest.ask({"op": "call", "args": call.fields, "compare_kept": "c", "seed": 1}, call.fds)["same_as_kept"]
        sets = [shared(torch.arange(4.0) + k) for k in range(2)]
        rotation = {"op": "rotation", "key": "c", "check_interval": 1, "buffers": None,
                    "sets": [{"seed": k, "args": s.fields, "fds": len(s.fds)} for k, s in enumerate(sets)]}
        assert guest.ask(rotation, [fd for s in sets for fd in s.fds])["input_sets"] == 2
        guest.ask({"op": "warm_up", "key": "c", "count": 2, "cover_cap_us": None})
        assert guest.ask({"op": "sample", "key": "c", "k": 0, "index": 0, "cover_cap_us": None})["ok"]
        guest.ask({"op": "profile", "args": call.fields, "screen_share": 0.0}, call.fds)
        armed = shared(torch.arange(4.0))
        assert guest.ask({"op": "arm", "key": "t", "args": armed.fields}, armed.fds)["ok"]
        assert guest.ask({"op": "go", "key": "t"})["ok"]
        assert guest.ask({"op": "pin", "cpus": None})["ok"]
        assert guest.ask({"op": "drop", "key": "c"})["l2_persisting_bytes"] == 0  # no persisting L2 on a CPU
        failed = guest.ask({"op": "call", "args": shared("not a tensor").fields})  # 2 * "..." is no tensor
        assert failed["ok"] is False
        assert guest.ask({"op": "peak_memory"})["gpu_bytes"] is not None
    finally:
        process.end()


def real_baselines_answer():
    from keval_runner.guest import baseline_guest

    process = baseline_guest.start([("golden", lambda x: 2 * x)])
    try:
        baselines = CheckedProcess(process)
        armed = shared(torch.arange(4.0))
        assert baselines.ask({"op": "arm", "key": "t", "args": armed.fields}, armed.fds)["ok"]
        assert baselines.ask({"op": "go", "key": "t", "who": "golden"})["outputs"][0]["shape"] == [4]
        assert baselines.ask({"op": "pin", "cpus": None})["ok"]
        assert baselines.ask({"op": "drop", "key": "t"})["ok"]
        assert baselines.ask({"op": "peak_memory"})["gpu_bytes"] is None
    finally:
        process.end()


if __name__ == "__main__":  # run_fresh's entry: a function of this module, by name
    globals()[sys.argv[1]](*sys.argv[2:])
