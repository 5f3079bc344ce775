"""The report as Markdown tables, for terminals and pull requests (no plots)."""

from . import cells
from .case_checks import case_summary
from .refine_section import refine_markdown
from .scores import run_scores


def _row(values) -> str:
    return "| " + " | ".join(str(v).replace("|", "\\|") for v in values) + " |"


def _table(header: list, rows: list) -> list:
    return [_row(header), _row(["---"] * len(header))] + [_row(r) for r in rows]


def render_markdown(runs: list, title: str) -> str:
    lines = [f"# {title}", "", "Verdicts and figures: docs/judging.md (\"Scores\").", ""]
    all_scores = [run_scores(run) for run in runs]
    lines += ["## Runs", ""]
    lines += _table(["run", "submissions", "call accuracy", "exec accuracy", "geomean speedup [95% CI]", "fast_1",
                     "pass@k", "baseline", "device"],
                    [[run.label, s["n"], cells.percent(s["call_accuracy"]), cells.percent(s["exec_accuracy"]),
                      cells.times(s["geomean_speedup"]) + cells.ci(s["geomean_ci"]), cells.percent(s["fast_1"]),
                      ", ".join(f"{k} {cells.percent(v)}" for k, v in s["pass_at_k"].items()) or "–",
                      s["baseline"] or "–", s["device"] or "–"] for run, s in zip(runs, all_scores)])
    lines += refine_markdown(runs)
    for run, s in zip(runs, all_scores):
        lines += ["", f"## {run.label}", ""]
        counts = sorted(s["verdict_counts"].items(), key=lambda item: (item[0] != "pass", -item[1], item[0]))
        lines += _table(["verdict", "submissions"], [[v, n] for v, n in counts])
        if s["harness_errors"]:
            lines += ["", f"{len(s['harness_errors'])} submission(s) not judged (harness errors): " +
                      "; ".join(f"{h.get('id')}: {h.get('reason')}" for h in s["harness_errors"])]
        lines += [""]
        lines += _table(["id", "task", "verdict", "speedup", "efficiency", "cases", "reason"],
                        [[r.get("id"), r["task"], r["verdict"], cells.times(r.get("speedup")),
                          cells.percent(r.get("efficiency")), case_summary(r)[0], cells.first_reason(r, 120)]
                         for r in run.results])
    return "\n".join(lines) + "\n"
