"""Hostile regression suite: known reward hacks and faults, each with the verdict it must get.

Every file in cases/ is one submission with a header:

    # task: relu                       the task it is submitted for
    # expect: tampering                the verdict it must get ("a|b": either is right)
    # device: cpu|cuda|both            the modes it runs in
    # needs: timing                    (optional) only the timing job can catch it
    # speedup_at_most: 2               (optional) the result's speedup, and each case's, is null or at most this
    # after: <case>                    (optional) judged after <case>, in the same worker slot
    # why: ...                         the hack, in one line

All cases of the current mode (CPU, or CUDA with KEVAL_HOSTILE_DEVICE=cuda) go through the real
`keval run` in one shared run (cases expecting `timeout` in a second run with a short deadline;
cases in an `after:` chain, and the cases they name, in a third run with one worker slot, in
the order the chains give), then each case is its own test id. Machine-safety tests follow: the suite folder is unchanged,
the store opens and holds every evaluation, nothing was written outside a job's work folder, no
process the cases started survives, nothing reached the network listener, floods were capped.

Environment: KEVAL (binary, default build/keval), KEVAL_PYTHON (runner Python, passed on to
keval), KEVAL_HOSTILE_DEVICE (cpu|cuda, default cpu), KEVAL_HOSTILE_TIMING=0 (run with
--no-timing: cases marked `needs: timing` are skipped), KEVAL_HOSTILE_CASES (comma-separated
globs over case names, for working on a few cases), KEVAL_HOSTILE_KEEP=1 (keep the runs' folder,
whose path is printed), KEVAL_HOSTILE_JOBS (worker slots of the shared runs, default 2; more on a GPU machine;
the ordered run has one), KEVAL_HOSTILE_RUNS_DIR (a
fixed folder for the runs, kept, so that a run cut short resumes there).
"""
import fnmatch
import glob
import hashlib
import json
import os
import pathlib
import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
CASES_DIR = HERE / "cases"
SUITE = REPO / "suites" / "keval"
RUNNER_PACKAGE = REPO / "runner" / "keval_runner"
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
DEVICE = os.environ.get("KEVAL_HOSTILE_DEVICE", "cpu")
TIMING = os.environ.get("KEVAL_HOSTILE_TIMING", "1") != "0"
JOBS = os.environ.get("KEVAL_HOSTILE_JOBS", "2")
ONLY = [g.strip() for g in os.environ.get("KEVAL_HOSTILE_CASES", "").split(",") if g.strip()]

SLEEPER_MARK = b"keval_hostile_sleeper"  # argv[0] of every process the cases leave behind
FILE_MARK = "keval_hostile_marker"  # name prefix of every file the "write" cases try to create
TMP_MARKS = "/tmp/keval_hostile_marker_*"
SHARED_TMP_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")
SHADOW_MARK = "shadowed by pgb_replace_torch"
# network_connect.py tries every one: the listener takes the first free, so that a second run
# beside this one (a busy CI machine) opens its own instead of skipping the check
LISTEN_PORTS = range(39517, 39533)
MAIN_TIMEOUT_S = 120
DEADLINE_TIMEOUT_S = 20  # the run of the cases that must time out
OUTPUT_CAP_BYTES = 1 << 20  # the sandbox keeps the first 1 MiB of a job's stdout and stderr
OUT_ROOT_ALLOWED = {"results.jsonl", "summary.json", "keval.db", "keval.db-journal", "keval.db-wal", ".keval.lock",
                    "keval.db-shm", "logs", "work"}
VERDICTS = {"pass", "bad_submission", "missing_entry", "compile_error", "runtime_error", "crash",
            "timeout", "wrong_shape", "wrong_dtype", "mismatch", "nan_mismatch", "nondeterministic",
            "input_mutated", "out_of_bounds", "no_kernel", "library_fallback", "tampering"}
HEADER_KEYS = {"task", "expect", "device", "needs", "why", "speedup_at_most", "after"}
DEVICES = {"cpu": {"cpu"}, "cuda": {"cuda"}, "both": {"cpu", "cuda"}}


# -- cases ------------------------------------------------------------------------------------

def parse_case(path: pathlib.Path) -> dict:
    header = {}
    for line in path.read_text().splitlines():
        m = re.match(r"#\s*(\w+):\s*(.*?)\s*$", line)
        if not m:
            break
        header[m.group(1)] = m.group(2)
    missing = {"task", "expect", "device", "why"} - set(header)
    unknown = set(header) - HEADER_KEYS
    if missing or unknown:
        raise ValueError(f"{path.name}: header lacks {sorted(missing)} / has unknown {sorted(unknown)}")
    expect = set(header["expect"].split("|"))
    if not expect <= VERDICTS or header["device"] not in {"cpu", "cuda", "both"}:
        raise ValueError(f"{path.name}: bad expect {header['expect']!r} or device {header['device']!r}")
    speedup_at_most = None
    if "speedup_at_most" in header:
        try:
            speedup_at_most = float(header["speedup_at_most"])
        except ValueError:
            speedup_at_most = -1.0
        if not speedup_at_most > 0:
            raise ValueError(f"{path.name}: speedup_at_most must be a positive number, not {header['speedup_at_most']!r}")
    after = header.get("after") or None
    if after is not None and not re.fullmatch(r"[A-Za-z0-9_]+", after):
        raise ValueError(f"{path.name}: after must name one case, not {after!r}")
    return {"name": path.stem, "path": path, "code": path.read_text(), "task": header["task"],
            "expect": expect, "device": header["device"], "needs_timing": header.get("needs") == "timing",
            "why": header["why"], "speedup_at_most": speedup_at_most, "after": after}


def all_cases() -> list:
    cases = [parse_case(p) for p in sorted(CASES_DIR.glob("*.py"))]
    by_name = {c["name"]: c for c in cases}
    for case in cases:
        if case["after"] is None:
            continue
        before = by_name.get(case["after"])
        if before is None:
            raise ValueError(f"{case['name']}: after names no case: {case['after']!r}")
        if not DEVICES[case["device"]] <= DEVICES[before["device"]]:
            raise ValueError(f"{case['name']}: runs where {case['after']} (device {before['device']}) does not")
        if "timeout" in case["expect"] or "timeout" in before["expect"]:
            raise ValueError(f"{case['name']}: a case that may time out cannot be in an after chain")
        seen = {case["name"]}
        while before["after"] is not None:  # the chain must end
            if before["name"] in seen:
                raise ValueError(f"{case['name']}: its after chain is a cycle")
            seen.add(before["name"])
            before = by_name[before["after"]]
    return cases


def selected_cases() -> list:
    cases = [c for c in all_cases() if c["device"] in ("both", DEVICE)]
    if ONLY:
        cases = [c for c in cases if any(fnmatch.fnmatch(c["name"], g) for g in ONLY)]
    return cases


CASES = selected_cases()


def ordered_cases(selected: list) -> list:
    """The cases of the ordered run: every case in an after chain (a selected case's
    predecessors too, selected or not), each after the case it names; ties by name."""
    by_name = {c["name"]: c for c in all_cases()}
    named = {c["after"] for c in by_name.values() if c["after"]}
    wanted = {c["name"] for c in selected if c["after"] or c["name"] in named}
    for name in list(wanted):
        while by_name[name]["after"]:
            name = by_name[name]["after"]
            wanted.add(name)
    order, placed = [], set()
    while len(order) < len(wanted):
        ready = sorted(n for n in wanted - placed if by_name[n]["after"] in (None, *placed))
        order += [by_name[n] for n in ready]
        placed.update(ready)
    return order


ORDERED = ordered_cases(CASES)
ORDERED_NAMES = {c["name"] for c in ORDERED}


def run_name(case) -> str:
    if case["name"] in ORDERED_NAMES:
        return "ordered"
    return "deadline" if case["expect"] == {"timeout"} else "main"


# -- machine state ----------------------------------------------------------------------------

def suite_hashes() -> dict:
    """Hashes of the task folders the cases use, and of the files at the suite's root (the
    places the write cases aim at; other tasks may be edited by others while the suite runs)."""
    hashes = {}
    for task in sorted({c["task"] for c in CASES}):
        hashes.update({f"{task}/{k}": v for k, v in tree_hashes(SUITE / task).items()})
    for path in sorted(SUITE.iterdir()):
        if path.is_file() or path.is_symlink():
            hashes[path.name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "link"
    return hashes


def tree_hashes(root: pathlib.Path) -> dict:
    hashes = {}
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts or path.suffix == ".pyc":
            continue  # bytecode Python may write while loading the task files
        if path.is_file() and not path.is_symlink():
            hashes[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_symlink():
            hashes[str(path.relative_to(root))] = "link:" + os.readlink(path)
    return hashes


def sleeper_pids() -> set:
    pids = set()
    for entry in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(entry, "rb") as f:
                if SLEEPER_MARK in f.read():
                    pids.add(int(entry.split("/")[2]))
        except OSError:
            pass
    return pids


def stray_markers() -> list:
    """Files the "write" cases try to create outside their work folders."""
    found = glob.glob(TMP_MARKS)
    for folder in [SUITE, *SUITE.iterdir(), RUNNER_PACKAGE, REPO]:
        if folder.is_dir():
            found += [str(p) for p in folder.glob(FILE_MARK + "*")]
    for folder in SHARED_TMP_FOLDERS:  # pgb_replace_torch's shadow modules, known by their text
        for name in ("torch.py", "triton.py", FILE_MARK + "_shadow.pth"):
            path = pathlib.Path(folder) / name
            try:
                if path.is_file() and (name.endswith(".pth") or SHADOW_MARK in path.read_text(errors="replace")):
                    found.append(str(path))
            except OSError:
                pass
    return sorted(found)


class Listener:
    """A TCP listener on 127.0.0.1, on the first free port of LISTEN_PORTS, that counts
    connections (none may arrive)."""

    def __init__(self):
        self.accepted = 0
        self.port = None
        for port in LISTEN_PORTS:
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT
            try:
                self.sock.bind(("127.0.0.1", port))
                self.sock.listen(16)
                self.sock.settimeout(0.2)
                self.port = port
                break
            except OSError:
                self.sock.close()
        self.bound = self.port is not None
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        if self.bound:
            self.thread.start()

    def _serve(self):
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self):
        self.stopped.set()
        if self.bound:
            self.thread.join(timeout=2)
        self.sock.close()


# -- the shared runs --------------------------------------------------------------------------

def run_keval(name: str, cases: list, tmp: pathlib.Path, timeout_s: int, timing: bool, jobs: str = JOBS) -> dict:
    submissions = tmp / f"{name}.jsonl"
    with open(submissions, "w") as f:
        for case in cases:
            f.write(json.dumps({"task": case["task"], "code": case["code"], "id": case["name"]}) + "\n")
    out = tmp / f"out_{name}"
    args = [KEVAL, "run", "--suite", str(SUITE), "--submissions", str(submissions), "--out", str(out),
            "--device", DEVICE, "--jobs", jobs, "--timeout", str(timeout_s), "--quiet"]
    if not timing:
        args.append("--no-timing")
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)  # keval decides the mode itself
    started = time.monotonic()
    proc = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
    results = {}
    if (out / "results.jsonl").exists():
        for line in (out / "results.jsonl").read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                results[r["id"]] = r
    return {"name": name, "cases": cases, "out": out, "proc": proc, "results": results,
            "seconds": time.monotonic() - started}


@pytest.fixture(scope="session")
def hostile():
    if not os.path.exists(KEVAL):
        pytest.fail(f"keval binary not found at {KEVAL} (build it, or set KEVAL)")
    # Jobs run under their own uid, which must traverse the folders above the output folder:
    # pytest's tmp_path (mode 0700) would fail every job with a PermissionError. Under /var/tmp,
    # not /tmp: a job sees its own private /tmp, which would hide the other submissions'
    # folders for a reason that a real --out (outside /tmp) does not have.
    fixed = os.environ.get("KEVAL_HOSTILE_RUNS_DIR")  # a run cut short resumes there
    if fixed:
        tmp = pathlib.Path(fixed)
        tmp.mkdir(parents=True, exist_ok=True)
    else:
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="keval-hostile-runs-", dir="/var/tmp"))
    tmp.chmod(0o755)
    print(f"hostile runs in {tmp}")
    for stale in stray_markers():  # left by an earlier, failed run: ours by name
        try:
            os.remove(stale)
        except OSError:
            pass
    suite_before = suite_hashes()
    sleepers_before = sleeper_pids()
    listener = Listener()
    runs = {}
    try:
        groups = {}
        for case in CASES:
            groups.setdefault(run_name(case), []).append(case)
        if groups.get("main"):
            runs["main"] = run_keval("main", groups["main"], tmp, MAIN_TIMEOUT_S, TIMING)
        if groups.get("deadline"):
            runs["deadline"] = run_keval("deadline", groups["deadline"], tmp, DEADLINE_TIMEOUT_S, False)
        if ORDERED:
            # One worker slot, the submissions in the file's order: each case after the one it
            # names, in the slot (its uid, its zygote) that case's jobs used.
            runs["ordered"] = run_keval("ordered", ORDERED, tmp, MAIN_TIMEOUT_S, TIMING, jobs="1")
    finally:
        listener.close()
    yield {"runs": runs, "suite_before": suite_before, "sleepers_before": sleepers_before,
           "listener": listener}
    if os.environ.get("KEVAL_HOSTILE_KEEP") != "1" and not fixed:
        shutil.rmtree(tmp, ignore_errors=True)


def result_of(hostile, name):
    for run in hostile["runs"].values():
        if name in run["results"]:
            return run["results"][name]
    return None


def run_of(hostile, name):
    for run in hostile["runs"].values():
        if any(c["name"] == name for c in run["cases"]):
            return run
    return None


def work_dir_of(run, case) -> pathlib.Path:
    """The job folder of a case: OUT/work/<key>/ holds the submission's code as submission.py."""
    for code_file in (run["out"] / "work").glob("*/submission.py"):
        if code_file.read_text() == case["code"]:
            return code_file.parent
    raise AssertionError(f"no work folder holds the code of {case['name']}")


# -- one test per case ------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_verdict(hostile, case):
    if case["needs_timing"] and not TIMING:
        pytest.skip("needs the timing job (KEVAL_HOSTILE_TIMING=0)")
    run = run_of(hostile, case["name"])
    assert run["proc"].returncode == 0, (
        f"keval run ({run['name']}) exited {run['proc'].returncode}: {run['proc'].stderr[-2000:]}")
    result = result_of(hostile, case["name"])
    assert result is not None, f"{case['name']}: no result in {run['out']}/results.jsonl"
    expected = "|".join(sorted(case["expect"]))
    reasons = "; ".join(result.get("reasons") or [])[:600]
    assert result["verdict"] in case["expect"], (
        f"{case['name']} ({case['why']}): expected {expected}, got {result['verdict']}: {reasons}")
    bound = case["speedup_at_most"]
    if bound is not None:
        speedups = {"result": result.get("speedup")}
        for entry in result.get("cases") or []:
            speedups[f"{entry.get('case')}/{entry.get('dtype')}"] = entry.get("speedup")
        over = {k: v for k, v in speedups.items() if v is not None and not v <= bound}
        assert not over, (f"{case['name']} ({case['why']}): speedup over {bound} "
                          f"(a forged time, or work it skipped, was rewarded): {over}")


@pytest.mark.parametrize("case", [c for c in CASES if c["after"]], ids=[c["name"] for c in CASES if c["after"]])
def test_judged_after(hostile, case):
    """The case was judged after the one it names, in the same slot: the ordered run has one
    slot, and its store numbers evaluations in the order they were recorded."""
    run = hostile["runs"]["ordered"]
    db = sqlite3.connect(f"file:{run['out'] / 'keval.db'}?mode=ro", uri=True)
    try:
        ids = dict(db.execute("SELECT submission_id, id FROM evaluations"))
    finally:
        db.close()
    assert case["name"] in ids and case["after"] in ids, f"the ordered run lacks {case['name']} or {case['after']}"
    assert ids[case["after"]] < ids[case["name"]], f"{case['name']} was judged before {case['after']}"


# -- machine safety ---------------------------------------------------------------------------

def test_runs_completed(hostile):
    for run in hostile["runs"].values():
        proc = run["proc"]
        assert proc.returncode == 0, f"keval run ({run['name']}) exited {proc.returncode}: {proc.stderr[-2000:]}"
        missing = {c["name"] for c in run["cases"]} - set(run["results"])
        assert not missing, f"results.jsonl of the {run['name']} run lacks {sorted(missing)}"


def test_suite_folder_unchanged(hostile):
    after = suite_hashes()
    before = hostile["suite_before"]
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    assert not (added or removed or changed), f"suite folder changed: added {added}, removed {removed}, changed {changed}"


def test_store_holds_every_evaluation(hostile):
    for run in hostile["runs"].values():
        db_path = run["out"] / "keval.db"
        assert db_path.exists() and db_path.stat().st_size > 0, f"{db_path} missing or empty"
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            stored = {row[0]: row[1] for row in db.execute("SELECT submission_id, verdict FROM evaluations")}
            finished = db.execute("SELECT COUNT(*) FROM runs WHERE finished_at IS NOT NULL").fetchone()[0]
        finally:
            db.close()
        missing = {c["name"] for c in run["cases"]} - set(stored)
        assert not missing, f"{db_path} lacks evaluations of {sorted(missing)}"
        for name, verdict in stored.items():
            if name in run["results"]:
                assert verdict == run["results"][name]["verdict"], f"{name}: store and results.jsonl disagree"
        assert finished >= 1, f"{db_path}: the run was never marked finished"


def test_no_files_written_outside_work_dirs(hostile):
    stray = stray_markers()
    for path in stray:  # ours by name or text: removed, so that no later process meets them
        try:
            os.remove(path)
        except OSError:
            pass
    assert not stray, f"files created outside the jobs' work folders: {stray}"
    for run in hostile["runs"].values():
        extra = sorted({p.name for p in run["out"].iterdir()} - OUT_ROOT_ALLOWED)
        assert not extra, f"unexpected entries in the output folder {run['out']}: {extra}"
        work = run["out"] / "work"
        extra = sorted(p.name for p in work.iterdir() if p.is_file()) if work.is_dir() else []
        assert not extra, f"files directly in {work}: {extra}"


def test_no_leftover_processes(hostile):
    deadline = time.monotonic() + 10  # the runner has exited: give the kernel a moment to reap
    left = sleeper_pids() - hostile["sleepers_before"]
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = sleeper_pids() - hostile["sleepers_before"]
    details = []
    for pid in sorted(left)[:10]:
        try:
            status = pathlib.Path(f"/proc/{pid}/status").read_text()
            uid = re.search(r"^Uid:\s*(\d+)", status, re.M).group(1)
            ppid = re.search(r"^PPid:\s*(\d+)", status, re.M).group(1)
            details.append(f"pid {pid} uid {uid} ppid {ppid}")
        except (OSError, AttributeError):
            details.append(f"pid {pid}")
    assert not left, f"{len(left)} processes started by the cases survived the run: {details}"


def test_network_listener_not_reached(hostile):
    listener = hostile["listener"]
    if not any(c["name"] == "network_connect" for c in CASES):
        pytest.skip("network_connect not selected")
    assert listener.bound, f"every port of {LISTEN_PORTS} on 127.0.0.1 was busy: no listener to check"
    assert listener.accepted == 0, f"{listener.accepted} connections reached 127.0.0.1:{listener.port} from jobs"


def test_output_flood_capped(hostile):
    case = next((c for c in CASES if c["name"] == "stdout_flood"), None)
    if case is None:
        pytest.skip("stdout_flood not selected")
    job = work_dir_of(run_of(hostile, case["name"]), case) / "candidate"
    for name in ("stdout.txt", "stderr.txt"):
        size = (job / name).stat().st_size
        assert size <= OUTPUT_CAP_BYTES + 64 * 1024, f"{job / name} kept {size} bytes of a 200 MB flood"


def test_huge_exception_message_stored_short(hostile):
    case = next((c for c in CASES if c["name"] == "huge_exception_message"), None)
    if case is None:
        pytest.skip("huge_exception_message not selected")
    run = run_of(hostile, case["name"])
    result = run["results"].get(case["name"])
    assert result is not None
    assert len(json.dumps(result)) < 64 * 1024, "the result line carries the 10 MB message"
    assert all(len(reason) <= 4000 for reason in result["reasons"]), "a stored reason is not short"
    db = sqlite3.connect(f"file:{run['out'] / 'keval.db'}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT length(reasons_json), length(facts_json), length(result_json) "
                         "FROM evaluations WHERE submission_id = ?", (case["name"],)).fetchone()
    finally:
        db.close()
    assert row is not None and max(n or 0 for n in row) < 1 << 20, f"stored sizes {row}"


def test_whole_suite_has_enough_cases():
    cases = all_cases()
    assert len(cases) >= 40
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names))


def test_trust_md_names_every_case():
    # docs/trust.md is the list of what keval detects: a case it does not name is undocumented
    # (a `prefix_*` entry names every case starting with prefix_)
    text = (REPO / "docs" / "trust.md").read_text()
    globs = re.findall(r"`([a-z0-9_]+_)\*`", text)
    missing = [c["name"] for c in all_cases()
               if f"`{c['name']}`" not in text and not any(c["name"].startswith(g) for g in globs)]
    assert not missing, f"docs/trust.md does not name: {missing}"
