"""The zygote's side of the protocol: ready, started/exit framing, bad requests, crashes,
kills, shutdown, and a protocol stream that candidate prints can never reach."""

import os
import signal
import pathlib
import time

from runner_harness import RunnerProcess, RunnerSeed, case, of_type, only


def test_ready_names_versions_and_pid(runner):
    ready = runner.ready
    assert ready["type"] == "ready" and ready["job"] == ""
    assert ready["pid"] == runner.proc.pid
    for field in ("python", "torch", "triton"):
        assert isinstance(ready[field], str) and ready[field]


def test_the_zygote_closes_each_jobs_pipes_after_it(fresh_runner, jobs):
    """Every job's message, stdout and stderr pipes are closed once drained: kept, they added
    three descriptors a job to the zygote (and to every later job's guest, which inherits them)."""
    def open_fds():
        return sorted(os.listdir(f"/proc/{fresh_runner.proc.pid}/fd"))

    fresh_runner.run(jobs.reference())
    before = open_fds()
    for _ in range(3):
        fresh_runner.run(jobs.reference())
    assert open_fds() == before


def test_every_job_is_framed_by_started_and_exit_from_the_same_child(runner, jobs):
    messages = runner.run(jobs.candidate("correct"))
    assert messages[0]["type"] == "started"
    assert messages[-1] == {"job": messages[0]["job"], "type": "exit", "code": 0, "signal": None,
                            "stdout_bytes": 0, "stderr_bytes": 0, "output_truncated": False, "leftovers_killed": 0}
    assert messages[-2]["type"] == "done"
    pid = messages[0]["pid"]
    assert pid != runner.proc.pid and pid > 0
    assert all(m["job"] == messages[0]["job"] for m in messages)


def test_probe_on_cpu_reports_no_cuda_and_versions(runner):
    messages = runner.run({"op": "probe", "job": "p1", "device": "auto", "gpu": 0})
    probe = only(messages, "probe")
    assert probe["cuda"] is False and probe["device"] == "cpu" and probe["gpu_count"] == 0
    assert probe["gpu_name"] is None and probe["l2_bytes"] is None
    assert probe["torch"] == runner.ready["torch"] and probe["triton"] == runner.ready["triton"]
    assert probe["interpret"] is True
    assert messages[-1]["code"] == 0


def test_probe_for_unavailable_cuda_says_cuda_false(runner):
    probe = only(runner.run({"op": "probe", "job": "p2", "device": "cuda", "gpu": 0}), "probe")
    assert probe["cuda"] is False and probe["device"] == "cuda"


def test_malformed_request_gets_a_protocol_error_and_the_zygote_goes_on(runner, jobs):
    runner.send_raw(b"this is not json\n")
    error = runner.next()
    assert error["type"] == "error" and error["stage"] == "protocol" and error["job"] == ""
    assert error["error_kind"] == "BadRequest"

    runner.send({"op": "explode", "job": "x1"})
    error = runner.next()
    assert error["stage"] == "protocol" and error["job"] == "x1" and "explode" in error["message"]
    # a rejected job still ends with its exit, or the controller would wait out its timeout
    exit = runner.next()
    assert (exit["type"], exit["job"], exit["code"], exit["rejected"]) == ("exit", "x1", None, True)

    runner.send({"op": "run", "job": "x2", "kind": "candidate"})
    error = runner.next()
    assert error["stage"] == "protocol" and "work_dir" in error["message"]
    assert runner.next()["type"] == "exit"

    assert only(runner.run(jobs.candidate("correct", cases=[case(seeds=[1])])), "call")["ok"] is True


def test_child_crash_with_os_exit_reports_its_code_and_no_done(runner, jobs):
    messages = runner.run(jobs.candidate("os_exit"))
    assert of_type(messages, "done") == []
    assert messages[-1]["type"] == "exit" and messages[-1]["code"] == 7 and messages[-1]["signal"] is None


def test_killing_the_child_group_gives_exit_with_signal_9(runner, jobs):
    request = jobs.candidate("infinite_loop")
    runner.send(request)
    started = runner.next()
    assert started["type"] == "started" and started["job"] == request["job"]
    pid = started["pid"]
    assert os.getpgid(pid) == pid  # the child leads its own process group
    assert only([runner.next()], "entry")["name"] == "vector_add"
    time.sleep(0.2)  # it is now spinning inside the call
    os.killpg(pid, signal.SIGKILL)
    messages = runner.until_exit(request["job"])
    exit = messages[-1]
    assert (exit["type"], exit["job"], exit["code"], exit["signal"]) == ("exit", request["job"], None, 9)
    assert of_type(messages, "done") == []
    assert only(runner.run(jobs.candidate("correct", cases=[case(seeds=[1])])), "call")["ok"] is True


def test_candidate_prints_go_to_work_dir_files_not_the_protocol(fresh_runner, jobs):
    request = jobs.candidate("noisy", cases=[case(seeds=[1])])
    messages = fresh_runner.run(request)
    assert fresh_runner.bad_lines == []
    assert only(messages, "call")["ok"] is True and messages[-1]["code"] == 0
    assert all(m["job"] == request["job"] for m in messages)  # the fake "done" it printed never surfaced
    with open(os.path.join(request["work_dir"], "stdout.txt")) as f:
        stdout = f.read()
    with open(os.path.join(request["work_dir"], "stderr.txt")) as f:
        stderr = f.read()
    assert "import-time noise 1999" in stdout and "call noise 19999" in stdout and "raw fd 1 noise" in stdout
    assert "stderr noise 19999" in stderr and "raw fd 2 noise" in stderr


def test_shutdown_exits_zero(exec_runner):
    exec_runner.send({"op": "shutdown"})
    assert exec_runner.proc.wait(timeout=30) == 0


def test_stdin_eof_exits_zero(exec_runner):
    exec_runner.proc.stdin.close()
    assert exec_runner.proc.wait(timeout=30) == 0


def test_job_runs_in_its_work_dir_with_tmpdir_there(runner, jobs, tmp_path):
    probe_file = tmp_path / "where.py"
    probe_file.write_text(
        "import os, tempfile\n"
        "def vector_add(x, y):\n"
        "    print('CWD=' + os.getcwd())\n"
        "    print('TMP=' + tempfile.gettempdir())\n"
        "    return x + y\n")
    request = jobs.candidate(str(probe_file), cases=[case(seeds=[1])])
    runner.run(request)
    with open(os.path.join(request["work_dir"], "stdout.txt")) as f:
        text = f.read()
    work_dir = os.path.realpath(request["work_dir"])
    assert f"CWD={work_dir}" in text and f"TMP={work_dir}" in text


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.startswith("State:") and "Z" in line for line in f)
    except FileNotFoundError:
        return True


def _children_of(pid: int) -> list:
    found = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _parent_of(pid: int) -> int:
    return int(pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_seeded_zygote_leaves_when_its_stdin_closes(fresh_runner, runner_seed):
    assert fresh_runner.ready["pid"] == fresh_runner.proc.pid
    assert _parent_of(fresh_runner.proc.pid) == runner_seed.proc.pid
    fresh_runner.proc.stdin.close()
    fresh_runner.proc.wait(timeout=30)


def test_children_die_with_the_zygote(fresh_runner, jobs):
    """The job's child (the warden) and the guest running the submission's endless call."""
    fresh_runner.send(jobs.candidate("infinite_loop"))
    pid = fresh_runner.next()["pid"]
    fresh_runner.next()  # entry: the child is now in the call
    guests = _children_of(pid)
    assert guests, "the warden has no guest"
    fresh_runner.proc.kill()
    fresh_runner.proc.wait(timeout=10)
    deadline = time.time() + 10
    while not all(_gone(p) for p in [pid, *guests]) and time.time() < deadline:
        time.sleep(0.05)
    assert _gone(pid)
    assert all(_gone(p) for p in guests), f"guest(s) {guests} outlived their warden"


def test_zygotes_die_with_their_seed_idle_or_in_a_job(jobs):
    """The seed dies with keval (its death signal, src/engine/runner/runner_exec.cc); its zygotes then
    get SIGTERM (seed.py) and leave, one idle with its stdin still open (no EOF tells it), one
    ending its job's warden and guest first. The test's seed: this one is killed."""
    seed = RunnerSeed()
    idle, busy = RunnerProcess(seed=seed), RunnerProcess(seed=seed)
    try:
        busy.send(jobs.candidate("infinite_loop"))
        warden = busy.next()["pid"]
        busy.next()  # entry: the guest is now in the endless call
        family = [idle.proc.pid, busy.proc.pid, warden, *_children_of(warden)]
        assert len(family) > 3, "the warden has no guest"
        seed.proc.kill()
        seed.proc.wait(timeout=30)
        deadline = time.monotonic() + 60
        while not all(_gone(pid) for pid in family):
            assert time.monotonic() < deadline, f"{[p for p in family if not _gone(p)]} outlived the seed by 60 s"
            time.sleep(0.05)
    finally:
        for zygote in (idle, busy):
            zygote.proc.kill()
            zygote.close()
        seed.channel.close()

def test_the_submission_holds_no_pipe_to_the_controller(runner, jobs):
    """The submission runs in the guest, which closed the message pipe: lines it writes into
    every pipe it holds reach no one (the warden alone writes the job's messages)."""
    request = jobs.candidate("writes_to_pipe", cases=[case(seeds=[1])])
    messages = runner.run(request)
    assert not [m for m in messages if m["type"] == "error" and m["stage"] == "protocol"]
    assert all(m["job"] == request["job"] for m in messages)
    assert only(messages, "call")["ok"] is True and len(of_type(messages, "done")) == 1


def test_garbage_in_the_guest_channel_is_tampering(runner, jobs):
    request = jobs.candidate("writes_to_socket", cases=[case(seeds=[1])])
    messages = runner.run(request)
    tampering = only(messages, "tampering")
    assert tampering["stage"] == "protocol" and "guest protocol" in tampering["names"][0]
    assert not of_type(messages, "call") and len(of_type(messages, "done")) == 1
