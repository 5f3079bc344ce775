"""The job sandbox through the real runner (network, files, output caps, leftovers, limits,
environment), plus in-process units of runner/keval_runner/sandbox/sandbox.py.

Tests that switch to a test uid need root; they use folders that uid can reach (pytest's own
tmp folders are private to root)."""

import os
import shutil
import stat
import tempfile
import warnings

import pytest

from keval_runner.sandbox import sandbox
from leased_uids import lease_uid
from runner_harness import SECRET_ENV, TASK_DIR, case, of_type, only, sandbox_settings, work_file

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="switching to a test uid needs root")
ONE_SEED = [case(seeds=[1])]


@pytest.fixture
def open_jobs(jobs):
    """Jobs in a root-owned folder that every uid may traverse (not write)."""
    folder = tempfile.mkdtemp(prefix="keval-sandbox-")
    os.chmod(folder, 0o755)
    yield jobs.in_folder(folder)
    shutil.rmtree(folder, ignore_errors=True)


def processes_of(uid: int) -> list:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                lines = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        if "Z" in lines.get("State", "") or "X" in lines.get("State", ""):
            continue
        if uid in {int(v) for v in lines.get("Uid", "").split()}:
            found.append(int(entry))
    return found


def children_of(pid: int) -> list:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    text = f.read()
            except OSError:
                continue
            fields = text[text.rfind(")") + 2:].split()
            if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
                found.append(int(entry))
    return found


# -- the `sandbox` message ------------------------------------------------------------------

def test_disabled_sandbox_sends_no_sandbox_message(runner, jobs):
    messages = runner.run(jobs.candidate("correct", cases=ONE_SEED, sandbox={"enabled": False}))
    assert of_type(messages, "sandbox") == [] and messages[1]["type"] == "entry"


@needs_root
def test_sandbox_message_comes_first_and_tells_what_was_applied(runner, open_jobs):
    limits = {"cpu_s": 600, "fsize_bytes": 1 << 30, "nofile": 512, "nproc": None, "as_bytes": None}
    uid = lease_uid()
    request = open_jobs.candidate("correct", cases=ONE_SEED, sandbox=sandbox_settings(uid=uid, rlimits=limits))
    messages = runner.run(request)
    assert [m["type"] for m in messages[:3]] == ["started", "sandbox", "entry"]
    facts = messages[1]
    assert facts["uid"] == uid and facts["warnings"] == [] and facts["network_isolated"] is False
    assert facts["rlimits"] == limits
    assert only(messages, "call")["ok"] is True and messages[-1]["code"] == 0
    # the guest owns only its own folder; the job's folder (the controller's signal files) and
    # the saved outputs (what the verdict reads) stay root's
    assert os.stat(os.path.join(request["work_dir"], "guest")).st_uid == uid
    assert os.stat(request["work_dir"]).st_uid == 0 and os.stat(request["outputs_dir"]).st_uid == 0
    assert os.stat(os.path.join(request["work_dir"], "stdout.txt")).st_uid == 0  # the zygote's file


def test_without_root_a_uid_is_a_warning(tmp_path):
    """Not root: no uid switch, and the sandbox says so. Run in a forked child that believes it is
    not root (the check reads os.geteuid), so the test means the same as root or not."""
    import json

    request = {"work_dir": str(tmp_path / "work"), "sandbox": sandbox_settings(uid=47102)}
    settings = sandbox.settings_from(request)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            os.geteuid = lambda: 1000
            facts = sandbox.apply(settings, request)
            os.write(write_end, json.dumps(facts).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        facts = json.loads(pipe.read())
    os.waitpid(pid, 0)
    assert facts["uid"] == os.getuid()  # nothing switched
    assert any("invoking user" in w for w in facts["warnings"])


def test_bad_sandbox_field_is_a_bad_request(runner, jobs):
    request = jobs.candidate("correct", sandbox={"enabled": True, "uid": "nobody"})
    runner.send(request)
    error = runner.next()
    assert (error["type"], error["stage"], error["error_kind"]) == ("error", "protocol", "BadRequest")
    assert "sandbox.uid" in error["message"]


# -- what a sandboxed candidate cannot do ---------------------------------------------------

def test_network_is_isolated(runner, jobs):
    request = jobs.candidate("net_probe", cases=ONE_SEED, sandbox=sandbox_settings(isolate_network=True))
    messages = runner.run(request)
    facts = only(messages, "sandbox")
    if not facts["network_isolated"]:
        pytest.skip(f"no network namespace here: {facts['warnings']}")
    stdout = work_file(request, "stdout.txt")
    assert "INTERFACES=lo\n" in stdout  # a fresh namespace holds only the loopback, and it is down
    assert "CONNECT=OSError:101" in stdout  # ENETUNREACH: not even 127.0.0.1 answers


@needs_root
def test_files_outside_the_work_dir_are_not_writable(runner, open_jobs):
    base = str(open_jobs.tmp_path)
    task_dir = os.path.join(base, "task")
    shutil.copytree(TASK_DIR, task_dir)
    protected = os.path.join(base, "protected")
    os.makedirs(protected)
    target = os.path.join(protected, "target.txt")
    request = open_jobs.candidate("writes_outside", cases=ONE_SEED, task_dir=task_dir,
                                  sandbox=sandbox_settings(uid=lease_uid(), env={"KEVAL_TEST_TARGET": target,
                                                                           "KEVAL_TEST_TASK_DIR": task_dir}))
    messages = runner.run(request)
    assert only(messages, "call")["ok"] is True
    assert not os.path.exists(os.path.join(task_dir, "planted.txt")) and not os.path.exists(target)
    stdout = work_file(request, "stdout.txt")
    # Both folders lie in /tmp, which the job sees as its own empty tmpfs (root only), so there
    # they do not even exist (a task folder elsewhere is covered by an empty mount of its own:
    # the hostile suite's read_golden_file).
    assert "UNREADABLE FileNotFoundError" in stdout and "READ reference.py" not in stdout
    assert stdout.count("REFUSED ") == 2 and "WROTE" not in stdout


def test_stdout_flood_is_capped_and_counted(runner, jobs):
    cap = 64 * 1024
    request = jobs.candidate("stdout_flood", cases=ONE_SEED, sandbox=sandbox_settings(stdout_cap_bytes=cap))
    messages = runner.run(request)
    assert only(messages, "call")["ok"] is True
    exit = messages[-1]
    assert exit["code"] == 0 and exit["output_truncated"] is True
    assert exit["stdout_bytes"] >= 3000 * 1024 and exit["stderr_bytes"] >= 1000 * 1024
    assert os.path.getsize(os.path.join(request["work_dir"], "stdout.txt")) == cap
    assert os.path.getsize(os.path.join(request["work_dir"], "stderr.txt")) == cap


def test_output_under_the_cap_is_kept_whole(runner, jobs):
    request = jobs.candidate("env_dump", cases=ONE_SEED, sandbox=sandbox_settings())
    exit = runner.run(request)[-1]
    stdout = work_file(request, "stdout.txt")
    assert exit["output_truncated"] is False and exit["stdout_bytes"] == len(stdout.encode()) > 0


@needs_root
def test_fork_bomb_leftovers_of_the_uid_are_killed(runner, open_jobs):
    uid = lease_uid()
    request = open_jobs.candidate("fork_bomb", sandbox=sandbox_settings(uid=uid))
    messages = runner.run(request)
    assert all(c["ok"] for c in of_type(messages, "call"))
    exit = messages[-1]
    assert exit["code"] == 0 and exit["leftovers_killed"] >= 50
    assert processes_of(uid) == []


def test_setsid_leftovers_are_killed_without_a_sandbox(runner, jobs):
    messages = runner.run(jobs.candidate("fork_bomb"))
    assert messages[-1]["leftovers_killed"] >= 50
    assert children_of(runner.ready["pid"]) == []  # the zygote, their subreaper, reaped them all


def test_file_size_limit_stops_a_big_write(runner, jobs):
    limit = 10 << 20
    request = jobs.candidate("big_file", cases=ONE_SEED,
                             sandbox=sandbox_settings(rlimits={"fsize_bytes": limit}))
    messages = runner.run(request)
    assert only(messages, "sandbox")["rlimits"]["fsize_bytes"] == limit
    assert only(messages, "call")["ok"] is True and messages[-1]["code"] == 0
    assert f"BIG_FILE=EFBIG {limit}" in work_file(request, "stdout.txt")
    assert os.path.getsize(os.path.join(request["work_dir"], "guest", "big.bin")) <= limit


def test_environment_is_scrubbed(runner, jobs):
    request = jobs.candidate("env_dump", cases=ONE_SEED, sandbox=sandbox_settings(env={"KEVAL_GIVEN": "yes"}))
    runner.run(request)
    stdout = work_file(request, "stdout.txt")
    assert SECRET_ENV[0] not in stdout and SECRET_ENV[1] not in stdout
    env = dict(line[4:].split("=", 1) for line in stdout.splitlines() if line.startswith("ENV "))
    guest_dir = os.path.join(request["work_dir"], "guest")  # the only folder the submission's uid owns
    assert env["KEVAL_GIVEN"] == "yes" and env["HOME"] == guest_dir
    assert env["TMPDIR"] == os.path.join(guest_dir, "tmp") and os.path.isdir(env["TMPDIR"])
    assert env["PYTHONDONTWRITEBYTECODE"] == "1" and env["TRITON_INTERPRET"] == "1"
    assert env["USER"] == env["LOGNAME"] == f"keval-{os.getuid()}"
    assert set(env) <= set(sandbox.ENV_WHITELIST) | {"HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE", "USER", "LOGNAME",
                                                     "KEVAL_GIVEN"}


def test_without_a_sandbox_the_environment_is_inherited(runner, jobs):
    request = jobs.candidate("env_dump", cases=ONE_SEED)
    runner.run(request)
    assert f"ENV {SECRET_ENV[0]}={SECRET_ENV[1]}" in work_file(request, "stdout.txt")


# -- the probe's capabilities ------------------------------------------------------------

def test_probe_reports_sandbox_capabilities(runner):
    uid = lease_uid()
    messages = runner.run({"op": "probe", "job": "sp1", "device": "cpu", "gpu": 0,
                           "sandbox": sandbox_settings(uid=uid, isolate_network=True)})
    assert [m["type"] for m in messages[:3]] == ["started", "sandbox", "probe"]
    caps = only(messages, "probe")["sandbox_capabilities"]
    assert caps["root"] is ROOT and isinstance(caps["netns"], bool)
    assert caps["cuda_as_uid"] is None  # no CUDA here
    if ROOT:
        assert isinstance(caps["toolkit_readable_as_uid"], bool) and caps["test_uid"] == uid


# -- units ----------------------------------------------------------------------------------

def test_settings_defaults_and_validation():
    assert sandbox.settings_from({}) is None and sandbox.settings_from({"sandbox": {"enabled": False}}) is None
    settings = sandbox.settings_from({"sandbox": {"enabled": True, "uid": 5}})
    assert settings["gid"] == 5 and settings["stdout_cap_bytes"] == sandbox.DEFAULT_STDOUT_CAP_BYTES
    assert settings["rlimits"] == {name: None for name in sandbox.RLIMIT_NAMES}
    assert "unknown keys" in sandbox.settings_problem({"enabled": True, "rlimits": {"cpu": 1}})
    assert "env" in sandbox.settings_problem({"enabled": True, "env": {"A": 1}})
    assert sandbox.settings_problem(None) == ""


def _in_child(test) -> int:
    with warnings.catch_warnings():  # the harness's reader threads: harmless for this child
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = test()
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_rlimits_never_raise_the_hard_limit():
    import resource

    def test():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        warnings = []
        applied = sandbox.apply_rlimits({"nofile": 100000, "cpu_s": None}, warnings)
        ok = applied["nofile"] == 256 and applied["cpu_s"] is None and warnings == []
        return 0 if ok and resource.getrlimit(resource.RLIMIT_NOFILE) == (256, 256) else 1

    assert _in_child(test) == 0


@needs_root
def test_chown_tree_skips_links_and_hard_linked_files(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("root's")
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "file.txt").write_text("x")
    os.link(outside, tree / "hard.txt")
    os.symlink(outside, tree / "soft.txt")
    sandbox.chown_tree(str(tree), 47106, 47106)
    assert os.stat(tree / "sub" / "file.txt").st_uid == 47106 and os.stat(tree).st_uid == 47106
    assert os.stat(outside).st_uid == 0
    assert os.lstat(tree / "soft.txt").st_uid == 47106 and stat.S_ISLNK(os.lstat(tree / "soft.txt").st_mode)
