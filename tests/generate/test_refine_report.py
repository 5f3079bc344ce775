"""keval report on a refinement's judge folder (keval generate --turns): the page has a
"Refinement turns" section whose per-turn and best-so-far figures match a hand count of a small
hand-written fixture (2 tasks x 2 samples x 3 turns), and a turn not judged is a one-line error."""
import html.parser
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO

# (task, sample) -> the verdict and speedup of turns 1, 2, 3 (None: failed)
OUTCOMES = {("a", 0): [None, 1.5, 2.5], ("a", 1): [0.8, None, None],
            ("b", 0): [None, None, 1.2], ("b", 1): [None, None, None]}

# By hand. turn 1: a passes 1 of 2 (0.8x), b 0 -> pass@1 (1/2 + 0)/2 = 25%, pass@2 (1 + 0)/2 = 50%,
# fast_0 1/4, fast_1 0 (0.8x is slower), geomean 0.80x. turn 2: a 1 (1.5x) -> pass@1 25%, fast_1 25%;
# best so far a 2 of 2, b 0 -> pass@1 50%, pass@2 50%, fast_1 25%. turn 3: a 1 (2.5x), b 1 (1.2x) ->
# pass@1 50%, pass@2 (1 + 1)/2 = 100%, fast_1 50%, fast_2 25%, geomean sqrt(3) = 1.73x; best so far
# a 2, b 1 -> pass@1 (1 + 1/2)/2 = 75%, pass@2 100%, fast_1 50%, fast_2 25%.
HEADER = ["turn", "passes", "pass@1", "pass@2", "fast_0", "fast_1", "fast_2", "geomean speedup",
          "best so far: passes", "best pass@1", "best pass@2", "best fast_0", "best fast_1", "best fast_2"]
EXPECTED = [
    ["1", "1", "25.0%", "50.0%", "25.0%", "0.0%", "0.0%", "0.80x", "1", "25.0%", "50.0%", "25.0%", "0.0%", "0.0%"],
    ["2", "1", "25.0%", "50.0%", "25.0%", "25.0%", "0.0%", "1.50x", "2", "50.0%", "50.0%", "50.0%", "25.0%", "0.0%"],
    ["3", "2", "50.0%", "100.0%", "50.0%", "50.0%", "25.0%", "1.73x", "3", "75.0%", "100.0%", "75.0%", "50.0%", "25.0%"],
]


def write_fixture(folder, turns=3):
    for turn in range(1, turns + 1):
        out = folder / f"turn-{turn}"
        out.mkdir(parents=True)
        results = []
        for (task, sample), speedups in OUTCOMES.items():
            speedup = speedups[turn - 1]
            results.append({"id": f"{task}@m#{sample}/t{turn}", "task": task,
                            "verdict": "pass" if speedup is not None else "mismatch", "speedup": speedup,
                            "reasons": [] if speedup is not None else ["case c: 4 of 4 elements outside tolerance"]})
        (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
        (out / "summary.json").write_text(json.dumps({"verdict_counts": {}, "fast_p": {}}))
    (folder / "summary.json").write_text(json.dumps(
        {"turns": 3, "samples": 2, "tasks": ["a", "b"], "model": "m", "timed": True, "per_turn": []}))


def report(folder, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "runner"))
    return subprocess.run([sys.executable, "-m", "keval_report", str(folder), "--html", str(tmp_path / "r.html"),
                           "--md", str(tmp_path / "r.md")], capture_output=True, text=True, env=env, timeout=120)


class Table(html.parser.HTMLParser):
    """The header and cell texts of the table with one id."""

    def __init__(self, table_id: str):
        super().__init__()
        self.table_id, self.inside, self.header, self.rows, self.cell = table_id, False, [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == self.table_id:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


@pytest.mark.timeout(180)
def test_the_report_shows_per_turn_curves_that_match_a_hand_count(tmp_path):
    folder = tmp_path / "refine.turns"
    write_fixture(folder)
    proc = report(folder, tmp_path)
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "r.html").read_text()
    assert '<h2 id="refinement">Refinement turns</h2>' in page
    assert 'id="plot-refine-0"' in page
    table = Table("refine-0")
    table.feed(page)
    assert table.rows[0] == HEADER
    assert table.rows[1:] == EXPECTED
    markdown = (tmp_path / "r.md").read_text()
    assert "| 3 | 2 | 50.0% | 50.0% | 1.73x | 3 | 75.0% | 50.0% |" in markdown


@pytest.mark.timeout(180)
def test_a_turn_not_judged_is_a_one_line_error_naming_its_file(tmp_path):
    folder = tmp_path / "refine.turns"
    write_fixture(folder, turns=2)
    proc = report(folder, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "turn-3/results.jsonl: no such file" in proc.stderr
