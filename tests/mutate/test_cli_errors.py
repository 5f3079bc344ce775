"""python -m keval_mutate says what is wrong in one line, naming the field or file."""
import subprocess
import sys

from conftest import REPO


def tool(*args):
    return subprocess.run([sys.executable, "-m", "keval_mutate", *args], cwd=REPO / "runner",
                          capture_output=True, text=True, timeout=60)


def test_unknown_operator_suggests_the_near_miss(tmp_path):
    proc = tool("generate", "--out", str(tmp_path), "--golden", f"relu={REPO}/suites/keval/relu/golden.py",
                "--operators", "mask_dropd")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "keval: --operators: unknown operator mask_dropd (did you mean mask_dropped?)"


def test_golden_that_does_not_parse_names_its_line(tmp_path):
    golden = tmp_path / "golden.py"
    golden.write_text("def f(:\n")
    proc = tool("generate", "--out", str(tmp_path), "--golden", f"t={golden}")
    assert proc.returncode == 2 and f"{golden}:1: the golden does not parse" in proc.stderr


def test_report_without_a_generate_names_the_missing_index(tmp_path):
    proc = tool("report", "--out", str(tmp_path))
    assert proc.returncode == 2 and "mutants.index.json: cannot read" in proc.stderr
