"""Every golden of keval's suite passes its task through `keval validate` on the CPU. In a file
of its own: it takes about 350 s, and pytest-xdist (--dist loadfile) then balances the other
files over the second worker."""
import pytest

from conftest import read_results, run_keval


@pytest.mark.timeout(1500)  # its validate's own limit; pytest.ini's 600 s would cut a busy machine's run
def test_every_golden_passes_its_task_on_the_cpu(tmp_path):
    """keval validate over the whole suite in CPU mode (small cases): every golden passes."""
    proc = run_keval("validate", "--suite", "suites/keval", "--device", "cpu", "--jobs", "2",
                     "--no-timing", "--out", tmp_path / "v", check=False, timeout=1500)
    failed = [f"{r['id']}: {r['verdict']}: {'; '.join(r.get('reasons') or [])[:800]}"
              for r in read_results(tmp_path / "v") if r["verdict"] != "pass"] \
        if (tmp_path / "v" / "results.jsonl").exists() else []
    assert proc.returncode == 0, "\n".join(failed) + "\n" + proc.stderr[-2000:]
    assert "every golden kernel passes" in proc.stdout
