"""`python -m keval_mutate peer-kills`: hand-made mutants of softmax's golden, in a folder shaped
as `keval mutate` writes it, judged by KernelBench's own criterion (the real compare-judges in
fresh interpreters, Triton's CPU interpreter) on a miniature checkout whose one problem is
level 1's Softmax at 16 x 257 (fixtures/peer_kills/kernelbench)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO
from keval_mutate.errors import MutateError
from keval_mutate.mutants import unified_diff
from keval_mutate.peer_pairs import load_pairs

GOLDEN = REPO / "suites" / "keval" / "softmax" / "golden.py"
CHECKOUT = REPO / "tests" / "mutate" / "fixtures" / "peer_kills" / "kernelbench"
ROW_MAX = "num = tl.exp(x - tl.max(x, axis=0))"
ROW_SUM = "y = num / tl.sum(num, axis=0)"

# id -> (the change to the golden's one-row kernel, keval's fate, keval's verdict); keval's
# verdicts are those `keval run --device cpu` gives each (softmax v3)
MUTANTS = {
    # issue 41's softmax: no max shift on odd widths; right as long as exp does not overflow,
    # which torch.rand's [0, 1) never makes it do: KernelBench passes it, keval's outliers do not
    "mutant:softmax:odd_max_skipped:1": ((ROW_MAX, "num = tl.exp(x - tl.where(n_cols % 2 == 1, 0.0, tl.max(x, axis=0)))"),
                                         "killed", "nan_mismatch"),
    # 0.6% low everywhere: outputs near 1/257 err by ~4e-5, under KernelBench's atol of 1e-4
    "mutant:softmax:sum_plus_one:1": ((ROW_SUM, "y = num / (tl.sum(num, axis=0) + 1.0)"), "killed", "mismatch"),
    # no normalisation at all: both kill it
    "mutant:softmax:sum_dropped:1": ((ROW_SUM, "y = num"), "killed", "mismatch"),
    # wrong only on a grid of 16 rows: KernelBench's shape here, none of keval's listed cases
    "mutant:softmax:sixteen_rows:1": ((ROW_SUM, "y = num / tl.sum(num, axis=0) * tl.where(tl.num_programs(0) == 16, 2.0, 1.0)"),
                                      "survived", "pass"),
    # equivalent for keval: never judged by the peer, never counted (its code is wrong on
    # purpose, so counting it would show)
    "mutant:softmax:equivalent:1": ((ROW_SUM, "y = num * 0.0"), "equivalent", "pass"),
}
FATE_LISTS = {"killed": "killed_by", "survived": "survivors", "equivalent": "equivalents"}


def write_mutate_output(out, golden_path=GOLDEN):
    """A folder as `keval mutate` leaves it: the index, the mutants' code, the report."""
    golden = GOLDEN.read_text()
    out.mkdir(parents=True, exist_ok=True)
    index = {"operators": {}, "tasks": {"softmax": {"golden": str(golden_path), "golden_id": "golden:softmax"}},
             "mutants": []}
    report = {"tasks": {"softmax": {"golden_verdict": "pass", **{k: [] for k in FATE_LISTS.values()}}}}
    lines = []
    for mutant_id, ((old, new), fate, verdict) in MUTANTS.items():
        assert golden.count(old) == 1, old
        code = golden.replace(old, new)
        operator = mutant_id.split(":")[2]
        index["mutants"].append({"id": mutant_id, "task": "softmax", "operator": operator, "site": 1, "line": 1,
                                 "diff": unified_diff(golden, code, "softmax"), "invalid": ""})
        report["tasks"]["softmax"][FATE_LISTS[fate]].append({"id": mutant_id, "operator": operator,
                                                             "verdict": verdict, "reason": ""})
        lines.append(json.dumps({"task": "softmax", "id": mutant_id, "code": code}))
    (out / "mutants.index.json").write_text(json.dumps(index))
    (out / "mutants.jsonl").write_text("\n".join(lines) + "\n")
    (out / "mutants.json").write_text(json.dumps(report))
    return out


def peer_kills(*args, timeout=280):
    env = dict(os.environ, PYTHONPATH=str(REPO / "runner"))
    env.pop("TRITON_INTERPRET", None)  # compare-judges sets it for the CPU itself
    return subprocess.run([sys.executable, "-m", "keval_mutate", "peer-kills", "--device", "cpu", "--timeout", "120",
                           *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.timeout(300)
def test_kernelbench_misses_the_odd_width_softmax_that_keval_kills(tmp_path):
    mutate = write_mutate_output(tmp_path / "mutate")
    proc = peer_kills("--mutants", mutate, "--peer", f"kernelbench:{CHECKOUT}", "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "out" / "peer_kills.json").read_text())

    row = report["tasks"]["softmax"]
    assert (row["mutants"], row["keval_killed"], row["equivalent"]) == (4, 3, 1)
    assert row["peers"]["kernelbench"] == {"status": "counted", "judged": 4, "killed": 2, "not_judged": 0}
    assert row["peers"]["tritonbench-t"] == {"status": "not run"}
    killed = {m["id"]: m["peers"]["kernelbench"]["killed"] for m in report["mutants"]}
    assert killed == {"mutant:softmax:odd_max_skipped:1": False, "mutant:softmax:sum_plus_one:1": False,
                      "mutant:softmax:sum_dropped:1": True, "mutant:softmax:sixteen_rows:1": True}
    assert report["per_peer"]["kernelbench"] == {"tasks": 1, "mutants": 4, "keval_killed": 3, "peer_killed": 2,
                                                 "keval_only": 2, "peer_only": 1}
    assert report["pairs"] == [{"task": "softmax", "peer": "kernelbench", "peer_task": "l1_23_softmax",
                                "reason": report["pairs"][0]["reason"], "golden": {"passed": True, "error": ""}}]
    assert "| softmax | 4 | 3 | not run | 2 | not run |" in proc.stdout
    # the equivalent mutant never reached the peer
    judged = (tmp_path / "out" / "kernelbench" / "mutants.jsonl").read_text()
    assert "equivalent:1" not in judged and judged.count("\n") == 4


@pytest.mark.timeout(200)
def test_a_pair_whose_golden_the_peer_fails_is_not_counted(tmp_path):
    """Glue that doubles the output: KernelBench fails the golden, so its mutants are not run."""
    pairs = tmp_path / "pairs.toml"
    pairs.write_text('[[pair]]\ntask = "softmax"\npeer = "kernelbench"\npeer_task = "l1_23_softmax"\n'
                     'reason = "a broken pairing"\nglue = """\nimport torch.nn as nn\n\n\n'
                     'class ModelNew(nn.Module):\n    def forward(self, x):\n        return softmax(x) * 2\n"""\n')
    mutate = write_mutate_output(tmp_path / "mutate")
    proc = peer_kills("--mutants", mutate, "--peer", f"kernelbench:{CHECKOUT}", "--pairs", pairs,
                      "--out", tmp_path / "out", timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cell = json.loads((tmp_path / "out" / "peer_kills.json").read_text())["tasks"]["softmax"]["peers"]["kernelbench"]
    assert cell["status"] == "the peer fails the golden" and "mismatch" in cell["error"].lower(), cell
    assert not (tmp_path / "out" / "kernelbench" / "mutants.jsonl").exists()
    assert "| softmax | 4 | 3 | — | the peer fails the golden | — |" in proc.stdout


@pytest.mark.timeout(60)
def test_a_golden_that_is_not_the_runs_is_refused(tmp_path):
    """The run's golden is gone and --suite holds another softmax: no peer runs."""
    other = tmp_path / "suite" / "softmax"
    other.mkdir(parents=True)
    (other / "golden.py").write_text(GOLDEN.read_text().replace("_MAX_FUSED = 32768", "_MAX_FUSED = 16384"))
    mutate = write_mutate_output(tmp_path / "mutate", golden_path=tmp_path / "gone" / "golden.py")
    proc = peer_kills("--mutants", mutate, "--peer", f"kernelbench:{CHECKOUT}", "--suite", tmp_path / "suite",
                      "--out", tmp_path / "out", timeout=50)
    assert proc.returncode == 2
    assert "not the golden the mutants of" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


@pytest.mark.timeout(30)
def test_every_pair_names_a_peer_entry_its_glue_defines():
    pairs = load_pairs()
    assert len(pairs) >= 10 and len({(p.task, p.peer) for p in pairs}) == len(pairs)
    for pair in pairs:
        entry = "class ModelNew(" if pair.peer == "kernelbench" else f"def {pair.peer_task}("
        assert entry in pair.glue, pair
        assert (REPO / "suites" / "keval" / pair.task / "golden.py").is_file(), pair
        assert pair.reason.strip(), pair


@pytest.mark.timeout(30)
def test_a_pair_table_with_an_unknown_peer_is_one_line_naming_the_pair(tmp_path):
    table = tmp_path / "pairs.toml"
    table.write_text('[[pair]]\ntask = "relu"\npeer = "kernelbench-x"\npeer_task = "relu"\nreason = "r"\nglue = "x = 1"\n')
    with pytest.raises(MutateError, match=r"pair 1: unknown peer 'kernelbench-x' \(known: tritonbench-t"):
        load_pairs(str(table))
