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


def test_report_of_a_run_made_elsewhere_names_the_missing_folder_and_takes_this_machines_suite(tmp_path):
    import json
    import shutil

    moved = tmp_path / "elsewhere" / "relu"  # the golden as the other machine's path named it
    moved.mkdir(parents=True)
    shutil.copy(REPO / "suites/keval/relu/golden.py", moved / "golden.py")
    out = tmp_path / "run"
    made = tool("generate", "--out", str(out), "--golden", f"relu={moved}/golden.py", "--operators", "mask_dropped")
    assert made.returncode == 0, made.stderr
    index = json.loads((out / "mutants.index.json").read_text())
    survivor = next(m["id"] for m in index["mutants"] if not m["invalid"])
    (out / "results.jsonl").write_text(json.dumps({"id": "golden:relu", "verdict": "pass"}) + "\n"
                                       + json.dumps({"id": survivor, "verdict": "pass"}) + "\n")
    shutil.rmtree(tmp_path / "elsewhere")
    proc = tool("report", "--out", str(out), "--equivalence-trials", "1")
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.strip() == (f"keval: mutants.index.json: task relu's folder {moved} is not here (a run made "
                                   "on another machine: pass --suite with this machine's suite folder)")
    proc = tool("report", "--out", str(out), "--equivalence-trials", "1", "--suite", str(REPO / "suites/keval"))
    assert proc.returncode == 0, proc.stderr
    relu = json.loads((out / "mutants.json").read_text())["tasks"]["relu"]
    assert [e["id"] for e in relu["survivors"] + relu["equivalents"]] == [survivor]  # checked, on this machine
