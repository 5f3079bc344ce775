"""A one-node Slurm on localhost for the tests: munged, slurmctld and slurmd from Debian's
packages, each with its files in one temp folder and on free ports; stopped afterwards."""
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel")


def missing_programs():
    paths = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    return [p for p in DAEMONS if not shutil.which(p, path=paths)]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _which(program):
    return shutil.which(program, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


class SlurmCluster:
    def __init__(self, root: pathlib.Path):
        self.root = root
        self.env = dict(os.environ)
        self.procs = []

    def _write_config(self):
        r = self.root
        for d in ("state", "spool", "munge"):
            (r / d).mkdir(parents=True, exist_ok=True)
        os.chmod(r / "munge", 0o700)
        key = r / "munge" / "munge.key"
        key.write_bytes(os.urandom(128))
        os.chmod(key, 0o600)
        host = socket.gethostname().split(".")[0]
        cpus = os.cpu_count() or 1
        self.conf = r / "slurm.conf"
        self.conf.write_text(f"""ClusterName=kevalci
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={r}/munge/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/slurmctld.log
SlurmdLogFile={r}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=5
MinJobAge=600
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=ci Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        self.env["SLURM_CONF"] = str(self.conf)
        self.host = host

    def _start(self, argv, log):
        out = open(self.root / log, "ab")
        proc = subprocess.Popen(argv, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def start(self, timeout=60):
        self._write_config()
        m = self.root / "munge"
        self._start([_which("munged"), "--foreground", "--force", f"--socket={m}/munge.socket",
                     f"--key-file={m}/munge.key", f"--pid-file={m}/munged.pid",
                     f"--log-file={m}/munged.log", f"--seed-file={m}/munged.seed"], "munged.out")
        deadline = time.time() + timeout
        while not (m / "munge.socket").exists():
            if time.time() > deadline:
                raise RuntimeError("munged did not start: " + self.logs())
            time.sleep(0.1)
        self._start([_which("slurmctld"), "-D", "-i", "-f", str(self.conf)], "slurmctld.out")
        self._start([_which("slurmd"), "-D", "-f", str(self.conf), "-N", self.host], "slurmd.out")
        while True:
            proc = subprocess.run(["sinfo", "--noheader", "--format=%T"], env=self.env,
                                  capture_output=True, text=True)
            state = proc.stdout.strip()
            if proc.returncode == 0 and state.startswith("idle"):
                return
            if time.time() > deadline:
                raise RuntimeError(f"slurm did not come up (sinfo: {state!r} {proc.stderr.strip()!r}): "
                                   + self.logs())
            time.sleep(0.5)

    def logs(self):
        text = []
        for name in ("munged.out", "slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"):
            p = self.root / name
            if p.exists():
                text.append(f"--- {name}\n" + p.read_text(errors="replace")[-3000:])
        return "\n".join(text)

    def stop(self):
        subprocess.run(["scancel", "--full", "--user=root"], env=self.env, capture_output=True)
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        # slurmstepd outlives slurmd (it keeps trying to report to the controller): end the ones
        # of this cluster, known by the SLURM_CONF they inherited.
        for pid in self._leftovers():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _leftovers(self):
        mark = f"SLURM_CONF={self.conf}".encode()
        pids = []
        for entry in pathlib.Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if mark in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                continue
        return pids
