"""Every operator of keval mutate, judged for real in CI: the fixture task row_rms has a site for
each (a column loop, strides passed at the launch, a sum and a mean, an eps, a masked fill, an
allocated output), and the real binary judges its mutants on the CPU (Triton's interpreter).
Each operator must make a mutant there and have one killed, by the verdict its bug should meet."""
import json
import subprocess

from conftest import FIXTURE_SUITE, KEVAL, REPO, keval_env
from keval_mutate.operators import OPERATORS

# The verdict each of the later operators' mutants meets on row_rms: the bug it models, caught
# by the check made for it (not only by some mismatch).
EXPECTED = {
    "stride_swapped": {"mismatch"},                 # the transposed view read row-major
    "index_transposed": {"out_of_bounds"},          # row + col * n_cols runs past y
    "output_dtype_changed": {"wrong_dtype"},        # float32 out of a float16 task
    "input_written_in_place": {"input_mutated"},    # y is x
}


def test_every_operator_makes_a_mutant_of_row_rms_and_has_one_killed(tmp_path):
    proc = subprocess.run([KEVAL, "mutate", "--suite", str(FIXTURE_SUITE), "--tasks", "row_rms", "--out",
                           str(tmp_path), "--device", "cpu", "--jobs", "2", "--equivalence-trials", "4"],
                          cwd=REPO, env=keval_env(), capture_output=True, text=True, timeout=540)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((tmp_path / "mutants.json").read_text())
    task = report["tasks"]["row_rms"]
    assert task["golden_verdict"] == "pass" and task["invalid"] == 0 and task["unjudged"] == 0
    assert task["survived"] == 0, task["survivors"]
    made = {name for name, op in report["operators"].items() if op["made"]}
    assert made == {op.name for op in OPERATORS}
    killed = {}
    for kill in task["killed_by"]:
        killed.setdefault(kill["operator"], set()).add(kill["verdict"])
    assert set(killed) == {op.name for op in OPERATORS}, sorted({op.name for op in OPERATORS} - set(killed))
    for operator, verdicts in EXPECTED.items():
        assert verdicts <= killed[operator], (operator, killed[operator])
    assert killed["loop_one_block"] & {"mismatch", "nan_mismatch"}
    assert killed["store_rounded"] == {"mismatch"}  # float32 rounded through float16
