"""keval report prints a run's statistics as summary.json holds them (the controller's one
definition, src/report/summary.cc), never counted again from results.jsonl: on a fixture whose
summary figures differ from any recount, and on a real run's summary."""
import json
import re
import shutil

from conftest import REPO, run_keval

FIXTURE = REPO / "tests" / "e2e" / "fixtures" / "sampled_run"


def runs_row(markdown: str, label: str) -> list:
    """The cells of the "Runs" table's row of `label`."""
    for line in markdown.splitlines():
        if line.startswith(f"| {label} |"):
            return [cell.strip() for cell in line.strip("|").split("|")]
    raise AssertionError(f"no row for {label} in:\n{markdown}")


def expected_cells(summary: dict) -> tuple:
    """(geomean speedup [CI], pass@k) as the report must print summary.json's figures."""
    ci = summary.get("geomean_speedup_ci")
    geomean = "–" if summary["geomean_speedup"] is None else f"{summary['geomean_speedup']:.2f}x"
    if ci:
        geomean += f" [{ci[0]:.2f}, {ci[1]:.2f}]"
    ks = sorted(summary["pass_at_k"].items(), key=lambda kv: int(kv[0]))
    return geomean, ", ".join(f"pass@{k} {100 * v:.1f}%" for k, v in ks) or "–"


def report_of(folder, tmp_path) -> tuple:
    run_keval("report", folder, "--out", tmp_path / "r.html")
    return (tmp_path / "r.md").read_text(), (tmp_path / "r.html").read_text()


def test_the_report_prints_summary_json_figures_not_a_recount(tmp_path):
    run = tmp_path / "sampled_run"
    shutil.copytree(FIXTURE, run)
    summary = json.loads((run / "summary.json").read_text())
    markdown, page = report_of(run, tmp_path)
    cells = runs_row(markdown, "sampled_run")
    geomean, pass_at_k = expected_cells(summary)
    assert cells[4] == geomean == "1.36x [1.01, 1.99]"
    assert cells[6] == pass_at_k == "pass@1 61.1%, pass@2 87.7%"
    for text in ("1.36x [1.01, 1.99]", "61.1%", "87.7%"):
        assert text in page


def test_a_summary_without_an_interval_shows_none(tmp_path):
    run = tmp_path / "older_run"
    shutil.copytree(FIXTURE, run)
    summary = json.loads((run / "summary.json").read_text())
    del summary["geomean_speedup_ci"]  # a summary.json written before keval kept the interval
    (run / "summary.json").write_text(json.dumps(summary))
    cells = runs_row(report_of(run, tmp_path)[0], "older_run")
    assert cells[4] == "1.36x"
    assert not re.search(r"\[\d", cells[4])
