"""The report as one self-contained HTML page: styles, plots (inline SVG) and the sorting script
are all in the file, so it opens offline and loads nothing from the network."""

import html
import json
import os

from . import cells
from .case_checks import case_summary, check_rows, checks_of
from .figures import all_figures
from .refine_section import refine_html
from .scores import run_scores

HERE = os.path.dirname(os.path.abspath(__file__))


def _asset(name: str) -> str:
    with open(os.path.join(HERE, name)) as f:
        return f.read()


def e(text) -> str:
    return html.escape("" if text is None else str(text))


def _td(text, value=None, numeric=False, cls="") -> str:
    attrs = ""
    if value is not None:
        attrs += f' data-v="{e(value)}"'
    classes = " ".join(c for c in ("num" if numeric else "", cls) if c)
    if classes:
        attrs += f' class="{classes}"'
    return f"<td{attrs}>{text}</td>"


def _th(title: str, key: str, numeric: bool) -> str:
    return f'<th data-key="{key}" data-type="{"num" if numeric else "text"}">{e(title)}</th>'


def _verdict(verdict: str) -> str:
    return f'<span class="verdict {"v-pass" if verdict == "pass" else "v-fail"}">{e(verdict)}</span>'


def _cards(scores: dict) -> str:
    items = [("call accuracy", cells.percent(scores["call_accuracy"])),
             ("exec accuracy", cells.percent(scores["exec_accuracy"])),
             ("geomean speedup", cells.times(scores["geomean_speedup"]) + cells.ci(scores["geomean_ci"])),
             ("fast_1", cells.percent(scores["fast_1"]))]
    items += [(k, cells.percent(v)) for k, v in scores["pass_at_k"].items()]
    items.append(("submissions", str(scores["n"])))
    return '<div class="cards">' + "".join(
        f'<div class="card"><div class="v">{e(v)}</div><div class="k">{e(k)}</div></div>' for k, v in items) + "</div>"


def _summary(run, scores: dict) -> str:
    parts = [f"<h3>{e(run.label)}</h3>" if run is not None else "", _cards(scores)]
    where = [scores["device"] or "", scores["gpu"] or "", scores["timing_method"] or ""]
    parts.append(f'<p class="note">{e(" · ".join(w for w in where if w))}; speedups against '
                 f'{e(scores["baseline"] or "nothing (not timed)")}; fast_p: '
                 + e(", ".join(f"fast_{k} {cells.percent(v)}" for k, v in scores["fast_p"].items()))
                 + ". What each figure means: docs/judging.md, “Scores”.</p>")
    counts = sorted(scores["verdict_counts"].items(), key=lambda item: (item[0] != "pass", -item[1], item[0]))
    parts.append("<table><thead><tr><th>verdict</th><th>submissions</th></tr></thead><tbody>" + "".join(
        f"<tr><td>{_verdict(v)}</td>{_td(n, n, True)}</tr>" for v, n in counts) + "</tbody></table>")
    if scores["harness_errors"]:
        parts.append(f'<p class="note">{len(scores["harness_errors"])} submission(s) not judged because of a '
                     "harness error (not the submission's fault; the next run judges them): " +
                     e("; ".join(f'{h.get("id")}: {h.get("reason")}' for h in scores["harness_errors"])) + "</p>")
    return "".join(parts)


def _leaderboard(runs: list, all_scores: list) -> str:
    head = ("<table class=\"sortable\" id=\"leaderboard\"><thead><tr>" + _th("run", "run", False) +
            _th("submissions", "n", True) + _th("call accuracy", "call", True) + _th("exec accuracy", "exec", True) +
            _th("geomean speedup", "geomean", True) + _th("fast_1", "fast1", True) + _th("pass@1", "pass1", True) +
            _th("device", "device", False) + "</tr></thead><tbody>")
    rows = []
    for run, s in zip(runs, all_scores):
        p1 = s["pass_at_k"].get("pass@1")
        rows.append("<tr>" + _td(e(run.label)) + _td(s["n"], s["n"], True) +
                    _td(cells.percent(s["call_accuracy"]), s["call_accuracy"], True) +
                    _td(cells.percent(s["exec_accuracy"]), s["exec_accuracy"], True) +
                    _td(e(cells.times(s["geomean_speedup"]) + cells.ci(s["geomean_ci"])), s["geomean_speedup"], True) +
                    _td(cells.percent(s["fast_1"]), s["fast_1"], True) + _td(cells.percent(p1), p1, True) +
                    _td(e(s["device"])) + "</tr>")
    return head + "".join(rows) + "</tbody></table>"


def _anchor(run_index: int, result_index: int) -> str:
    return f"sub-{run_index}-{result_index}"


def _submissions_table(runs: list) -> str:
    several = len(runs) > 1
    head = ('<table class="sortable" id="submissions"><thead><tr>' + (_th("run", "run", False) if several else "") +
            _th("id", "id", False) + _th("task", "task", False) + _th("verdict", "verdict", False) +
            _th("speedup", "speedup", True) + _th("efficiency", "efficiency", True) + _th("cases", "cases", True) +
            _th("reason", "reason", False) +
            "</tr></thead><tbody>")
    rows = []
    for i, run in enumerate(runs):
        for j, r in enumerate(run.results):
            cases_text, cases_passed = case_summary(r)
            rows.append("<tr>" + (_td(e(run.label)) if several else "") +
                        _td(f'<a href="#{_anchor(i, j)}">{e(r.get("id"))}</a>', r.get("id")) +
                        _td(e(r["task"])) + _td(_verdict(r["verdict"]), r["verdict"]) +
                        _td(cells.times(r.get("speedup")), r.get("speedup"), True) +
                        _td(cells.percent(r.get("efficiency")), r.get("efficiency"), True) +
                        _td(e(cases_text), cases_passed, cls="cases") +
                        _td(e(cells.first_reason(r, 160)), cls="reason") + "</tr>")
    return head + "".join(rows) + "</tbody></table>"


def _cases_table(result: dict) -> str:
    cases = result.get("cases") or []
    if not cases:
        return '<p class="note">No case was timed or measured.</p>'
    head = ("<table><thead><tr><th>case</th><th>dtype</th><th>time</th><th>baseline time</th><th>speedup</th>"
            "<th>samples</th><th>efficiency</th><th>max abs err</th><th>max rel err</th></tr></thead><tbody>")
    rows = ["<tr>" + _td(e(c.get("case"))) + _td(e(c.get("dtype"))) + _td(cells.ms(c.get("time_ms")), numeric=True) +
            _td(cells.ms(c.get("ref_time_ms")), numeric=True) + _td(cells.times(c.get("speedup")), numeric=True) +
            _td(e(c.get("samples")), numeric=True) + _td(cells.percent(c.get("efficiency")), numeric=True) +
            _td(e(cells.number(c.get("max_abs_err"))), numeric=True) +
            _td(e(cells.number(c.get("max_rel_err"))), numeric=True) + "</tr>" for c in cases]
    return head + "".join(rows) + "</tbody></table>"


def _checks_table(result: dict) -> str:
    """Each call's pass or failure, folded away unless one failed."""
    checks = checks_of(result)
    if checks is None:
        return ""
    if not checks:
        return '<p class="note">No call was checked.</p>'
    summary, _ = case_summary(result)
    passed = sum(1 for c in checks if c.get("result") == "pass")
    head = (f'<details class="checks"{"" if passed == len(checks) else " open"}><summary>Correctness: '
            f"{e(summary)} ({passed} of {len(checks)} calls pass)</summary><table><thead><tr><th>case</th>"
            "<th>dtype</th><th>seed</th><th>output shapes</th><th>result</th><th>max abs err</th><th>why</th>"
            "</tr></thead><tbody>")
    rows = ["<tr>" + _td(e(case)) + _td(e(dtype)) + _td(e(seed), numeric=True) + _td(e(shapes)) +
            _td(_verdict(outcome), outcome) + _td(e(err), numeric=True) + _td(e(why), cls="reason") + "</tr>"
            for case, dtype, seed, shapes, outcome, err, why in check_rows(result)]
    return head + "".join(rows) + "</tbody></table></details>"


def failing_outputs(compares: list) -> list:
    """(where, output facts) of every output the reference found wrong, at most 12."""
    found = []
    for compare in compares:
        where = f'{compare.get("case")} {compare.get("dtype")} seed {compare.get("seed")}'
        for out in compare.get("outputs") or []:
            bad = out.get("shape") != out.get("ref_shape") or out.get("dtype") != out.get("ref_dtype") or \
                (out.get("n_over_tol") or 0) > 0
            if bad and len(found) < 12:
                found.append((where, out))
    return found


def _failing_table(compares: list) -> str:
    found = failing_outputs(compares)
    if not found:
        return ""
    head = ("<h4>Failing outputs</h4><table><thead><tr><th>where</th><th>output</th><th>shape</th><th>dtype</th>"
            "<th>bad elements</th><th>NaN / Inf</th><th>max abs err</th><th>first bad element</th></tr></thead><tbody>")
    rows = []
    for where, out in found:
        first = out.get("first_bad") or {}
        first_text = (f'{first.get("position")}: got {cells.element(first.get("actual"))}, expected '
                      f'{cells.element(first.get("expected"))} (atol {cells.number(out.get("atol"))}, rtol '
                      f'{cells.number(out.get("rtol"))})') if first else "–"
        rows.append("<tr>" + _td(e(where)) + _td(e(out.get("index")), numeric=True) +
                    _td(e(f'{out.get("shape")} (expected {out.get("ref_shape")})')) +
                    _td(e(f'{out.get("dtype")} (expected {out.get("ref_dtype")})')) +
                    _td(e(f'{out.get("n_over_tol")} of {out.get("numel")}'), numeric=True) +
                    _td(e(f'{out.get("nan")} / {out.get("inf")} (reference {out.get("ref_nan")} / {out.get("ref_inf")})')) +
                    _td(e(cells.number(out.get("max_abs_err"))), numeric=True) + _td(e(first_text)) + "</tr>")
    return head + "".join(rows) + "</tbody></table>"


def _origin(origin) -> str:
    """Where a submission came from as the run was given it, an absolute path by its file name
    only: the page may be shared, the machine's folders are nobody else's."""
    if isinstance(origin, str) and os.path.isabs(origin):
        return os.path.basename(origin)
    return origin


def _submission_section(run, run_index: int, result_index: int, r: dict) -> str:
    parts = [f'<section class="submission" id="{_anchor(run_index, result_index)}">',
             f'<h3>{e(r.get("id"))} · {e(r["task"])} · {_verdict(r["verdict"])}</h3>',
             f'<p class="note">{e(run.label)} · {e(_origin(r.get("origin")))} · speedup {e(cells.times(r.get("speedup")))}</p>']
    if r.get("reasons"):
        parts.append("<ul>" + "".join(f"<li>{e(reason)}</li>" for reason in r["reasons"]) + "</ul>")
    if r.get("static_flags"):
        parts.append("<h4>Flags raised</h4><ul>" + "".join(f"<li>{e(f)}</li>" for f in r["static_flags"]) + "</ul>")
    parts.append(_checks_table(r))
    parts.append(_cases_table(r))
    parts.append(_failing_table(run.compares.get(r.get("hash"), [])))
    code = run.code.get(r.get("hash"))
    if code is not None:
        parts.append(f"<details><summary>code ({len(code.splitlines())} lines)</summary><pre><code>{e(code)}</code></pre></details>")
    parts.append("</section>")
    return "".join(parts)


def render_html(runs: list, title: str) -> str:
    all_scores = [run_scores(run) for run in runs]
    body = [f"<h1>{e(title)}</h1>",
            f'<p class="note">From {e(", ".join(run.label for run in runs))}. Verdicts and figures: '
            "docs/judging.md. Click a column to sort; type in the box above the submissions to filter them.</p>"]
    if len(runs) > 1:
        body += ["<h2>Leaderboard</h2>", _leaderboard(runs, all_scores)]
    body.append("<h2>Summary</h2>")
    body += [_summary(run if len(runs) > 1 else None, s) for run, s in zip(runs, all_scores)]
    body += refine_html(runs)
    body.append("<h2>Plots</h2><div class=\"plots\">")
    body += [f'<figure class="plot" id="{anchor}" aria-label="{e(name)}">{svg}</figure>'
             for anchor, name, svg in all_figures(runs)]
    body.append("</div><h2>Submissions</h2>")
    body.append('<p class="filter"><input type="search" id="filter" placeholder="filter: id, task, verdict, reason" '
                'aria-label="Show only the submissions whose row holds this text"> '
                '<span class="note" id="filter-count"></span></p>')
    body.append(_submissions_table(runs))
    for i, run in enumerate(runs):
        body += [_submission_section(run, i, j, r) for j, r in enumerate(run.results)]
    data = json.dumps({"runs": [run.label for run in runs]})
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{_asset('page_style.css')}</style></head><body>"
            + "\n".join(body) +
            f"<script type=\"application/json\" id=\"report-data\">{data}</script>"
            f"<script>{_asset('page_script.js')}</script></body></html>\n")
