"""The child that runs a dataset's programs (child_batch.py) reaches no network: a program that
connects to a server listening beside it fails, while the same connection from here works."""
import socket

from conftest import REPO
from keval_dataset import child_batch

PROBE = '''
import socket, sys
from keval_dataset import child_batch

def answer(job):
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect(("127.0.0.1", job["port"]))
        return {"reached": True}
    except OSError as error:
        return {"reached": False, "error": type(error).__name__}

if __name__ == "__main__":
    child_batch.serve(sys.argv[1], sys.argv[2], answer)
'''


def test_a_program_in_the_child_reaches_no_server_beside_it(tmp_path):
    (tmp_path / "probe_net.py").write_text(PROBE)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # reachable from this process: the child's failure below is its confinement
        found = child_batch.run([{"key": "k", "port": port}], "probe_net", seconds=30,
                                env={"PYTHONPATH": f"{tmp_path}:{REPO / 'runner'}"})
    assert found["k"]["reached"] is False, found


def test_the_confinement_applies_here():
    import subprocess
    import sys

    code = "from keval_dataset import child_batch; print(child_batch.confine())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(REPO / "runner"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
