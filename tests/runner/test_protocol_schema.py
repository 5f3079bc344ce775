"""The protocol's schemas (runner/keval_runner/protocol/, docs/protocol.md) against the runner.

Every message the runner tests receive is checked against messages.schema.json by the harness
(runner_harness.py: the fixtures fail on any message off the schema). Here: the schemas are
JSON Schema as `jsonschema` reads it, the runner's own checker agrees with it, every message
type and error stage the runner's code sends is in the schema, and the messages only the
device gates and sweep jobs send are made and checked too.
"""

import copy
import json
import os
import re

import pytest

from keval_runner.protocol import request_check
from keval_runner.protocol.schema_check import SchemaChecker, unsupported_keywords
from runner_harness import MESSAGES_SCHEMA, RUNNER_DIR, TASK_DIR, candidate_file, case, message_problem, of_type

REQUEST_SCHEMA = request_check.REQUEST_SCHEMA
SOURCES = os.path.join(RUNNER_DIR, "keval_runner")


def message_examples():
    for name, definition in MESSAGES_SCHEMA["$defs"].items():
        for example in definition.get("examples", []):
            yield name, example


def mutations(example: dict):
    """The example with each field left out, and with each field of a value no field has."""
    for field in example:
        without = dict(example)
        del without[field]
        yield f"without {field}", without
        changed = dict(example)
        changed[field] = {"unexpected": [field]}
        yield f"{field} mistyped", changed


def runner_sources():
    for folder, _, files in os.walk(SOURCES):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    yield name, f.read()


# -- the schemas themselves -------------------------------------------------------------------

def test_the_schemas_are_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    for schema in (MESSAGES_SCHEMA, REQUEST_SCHEMA):
        jsonschema.Draft202012Validator.check_schema(schema)


def test_the_runners_checker_reads_every_keyword_the_schemas_use():
    assert unsupported_keywords(MESSAGES_SCHEMA) == set()
    assert unsupported_keywords(REQUEST_SCHEMA) == set()


def test_every_example_follows_its_schema():
    for name, example in message_examples():
        assert message_problem(example) == "", (name, example)
        assert example["type"] == name
    for example in REQUEST_SCHEMA["examples"]:
        assert request_check.request_problem(example) == "", example


def test_the_runners_checker_agrees_with_jsonschema():
    jsonschema = pytest.importorskip("jsonschema")
    checked = 0
    for schema, examples in ((MESSAGES_SCHEMA, [e for _, e in message_examples()]), (REQUEST_SCHEMA, REQUEST_SCHEMA["examples"])):
        reference = jsonschema.Draft202012Validator(schema)
        ours = SchemaChecker(schema)
        for example in examples:
            for what, value in [("as given", example), *mutations(example)]:
                expected_valid = reference.is_valid(value)
                problem = ours.first_problem(value)
                assert (problem == "") == expected_valid, (what, value, problem)
                checked += 1
    assert checked > 300


def test_the_timing_defaults_are_the_runners_old_constants():
    # the controller sends each of them (run_settings.h); these serve requests that leave them out
    assert request_check.TIMING_DEFAULTS == {
        "warmup": 0, "min_samples": 1, "max_samples": 100, "max_seconds": 1.0, "min_seconds": 0.0,
        "target_rel_stdev": 0.005, "low_clock_fraction": 0.75, "launch_cover_us": 200,
        "spread_share": 0, "spread_bands": [],  # the spread rule off without the controller's bands
        "cuda_clock": "guest",  # a request without it (the controller sends "warden": run_settings.h)
        "done_wait_s": 120, "timed_output_tolerance_factor": 8, "timed_output_span_factor": 2,
        "timed_calls_max": 1, "timed_calls_bytes": 0}  # one call a sample without the controller's
    assert request_check.timing_setting({"target_rel_stdev": 0.01}, "target_rel_stdev") == 0.01
    assert request_check.timing_setting({}, "launch_cover_us") == 200


# -- the runner's code against the schema -----------------------------------------------------

def test_every_message_type_the_runner_sends_is_in_the_schema():
    known = set(MESSAGES_SCHEMA["properties"]["type"]["enum"])
    sent = set()
    for name, text in runner_sources():
        sent |= set(re.findall(r"""\b_?send\(\s*"([a-z_]+)\"""", text))
        sent |= set(re.findall(r"""send\(\s*index,\s*"([a-z_]+)\"""", text))  # the sweep's tagged messages
    sent.add("error")  # MessageWriter.error
    assert sent <= known, sent - known
    assert {"call", "compare", "timing", "device_alone", "variant_done", "exit"} <= sent  # the scan found them


def test_every_error_stage_the_runner_sends_is_in_the_schema():
    stages = set(MESSAGES_SCHEMA["$defs"]["error"]["properties"]["stage"]["enum"])
    used = set()
    for name, text in runner_sources():
        used |= set(re.findall(r"""\.error\(\s*"([a-z_]+)\"""", text))
        used |= set(re.findall(r"""(?:_task_error|guest_error)\(\s*"([a-z_]+)\"""", text))
        used |= set(re.findall(r"""self\.error\(\s*index,\s*"([a-z_]+)\"""", text))
    assert used <= stages, used - stages
    assert {"call", "task", "runner", "protocol", "baseline", "timing"} <= used  # the scan found them


# -- requests -----------------------------------------------------------------------------------

def test_a_request_problem_names_the_field():
    problem = request_check.request_problem
    assert "task_dir" in problem({"op": "run", "job": "j", "kind": "reference", "work_dir": "/tmp"})
    assert problem({"op": "run", "job": "j", "kind": "ceilings", "work_dir": "/tmp"}) == ""
    assert "timing.target_rel_stdev" in problem(dict(REQUEST_SCHEMA["examples"][1], timing={"target_rel_stdev": "low"}))
    assert "cases[0].seeds" in problem(dict(REQUEST_SCHEMA["examples"][1], cases=[{"name": "a", "dtype": "f", "seeds": 3}]))
    assert "checks has unknown keys ['guards']" in problem(dict(REQUEST_SCHEMA["examples"][1], checks={"guards": 1}))
    # a disabled sandbox's other fields are never read, so never checked
    assert problem({"op": "probe", "job": "p", "sandbox": {"enabled": False, "uid": "nobody"}}) == ""
    assert "sandbox.uid must be a non-negative integer or null" in problem(
        {"op": "probe", "job": "p", "sandbox": {"enabled": True, "uid": -1}})
    assert problem({"op": "shutdown"}) == ""
    assert "op must be one of probe, run, shutdown" in problem({"op": "stop"})
    assert problem(["op"]) == "request must be an object"


# -- messages only the device gates and sweep jobs send -----------------------------------------

def go_aheads(work_dir: str) -> None:
    """The controller's answers, made before they are asked for: every wait ends at once."""
    os.makedirs(work_dir, exist_ok=True)
    for k in range(20):
        for name in ("device-alone", "device-resume", "device-busy"):
            open(os.path.join(work_dir, f"{name}-{k}"), "w").close()


def test_device_gate_and_sweep_messages_follow_the_schema(runner, jobs, tmp_path):
    hold = tmp_path / "device-hold-0"
    hold.write_text("")  # a timing job waits: every job pauses at its pause points
    request = jobs.candidate("correct", cases=[case(seeds=[1])])
    request["device_hold"] = str(hold)
    go_aheads(request["work_dir"])
    messages = runner.run(request)
    types = [m["type"] for m in messages]
    assert {"device_paused", "call", "done"} <= set(types), types

    sweep = {"op": "run", "job": "sweep1", "kind": "sweep", "device": "cpu", "gpu": 0, "task_dir": TASK_DIR,
             "entry": "vector_add", "outputs_dir": jobs.outputs_dir, "work_dir": str(tmp_path / "sweep1"),
             "inplace": False, "cases": [case(seeds=[1])], "timed": [case(seeds=[1])],
             "timing": {"enabled": True, "warmup": 0, "min_samples": 2, "max_samples": 3, "max_seconds": 0.2},
             "variants": [{"index": 0, "code_file": candidate_file("correct")},
                          {"index": 1, "code_file": candidate_file("import_error")}],
             "device_gate": True, "device_hold": str(hold), "check_determinism": False}
    go_aheads(sweep["work_dir"])
    messages = runner.run(sweep)
    assert [m["variant"] for m in of_type(messages, "variant_done")] == [0, 1]
    tagged = {m["type"] for m in messages if "variant" in m}
    assert {"call", "compare", "timing", "error", "variant_done"} <= tagged, tagged
    assert {"device_alone", "device_shared"} <= {m["type"] for m in messages}
    off = [(message_problem(m), m) for m in messages if message_problem(m)]
    assert off == []


def test_idle_stretch_messages_follow_the_schema(tmp_path):
    """A job gives its share back around a compile (on CUDA) and asks for it again."""
    from keval_runner.device import device_gate
    from keval_runner.protocol.messages import MessageWriter

    read_fd, write_fd = os.pipe()
    writer = MessageWriter(write_fd, "j1")
    device_gate.reset()
    go_aheads(str(tmp_path))
    device_gate.begin_idle({"work_dir": str(tmp_path), "device_hold": str(tmp_path / "hold")}, writer)
    device_gate.end_idle()
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        messages = [json.loads(line) for line in pipe.read().splitlines()]
    assert [m["type"] for m in messages] == ["device_idle", "device_busy"]
    assert [message_problem(m) for m in messages] == ["", ""]


def test_a_message_off_the_schema_is_found():
    call = copy.deepcopy(MESSAGES_SCHEMA["$defs"]["call"]["examples"][0])
    call["inputs_mutated"] = "no"
    assert message_problem(call) == "inputs_mutated must be a boolean"
    call["inputs_mutated"] = False
    call["hidden"] = 1
    assert "has unknown keys ['hidden']" in message_problem(call)
    assert "must be one of" in message_problem({"job": "j", "type": "turn"})
    assert json.loads(json.dumps(call))  # the examples are plain JSON
