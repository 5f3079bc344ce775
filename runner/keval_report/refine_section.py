"""The report's "Refinement turns" section: per run of `keval generate --turns N`, a table of
pass@k, fast_p and geomean speedup at each turn and best so far, and their curves (SVG)."""

import html

from . import cells
from .figures import _svg, plt


def e(text) -> str:
    return html.escape("" if text is None else str(text))


def _plot(run) -> str:
    turns = [c["turn"] for c in run.turns]
    fig, ax = plt.subplots(figsize=(6.5, 3))
    ax.plot(turns, [c["pass_at_k"]["1"] for c in run.turns], marker="o", label="pass@1 at turn t")
    ax.plot(turns, [c["best_so_far"]["pass_at_k"]["1"] for c in run.turns], marker="s", linestyle="--",
            label="pass@1 best so far")
    if run.turns[0]["fast_p"]["1"] is not None:
        ax.plot(turns, [c["fast_p"]["1"] for c in run.turns], marker="^", label="fast_1 at turn t")
        ax.plot(turns, [c["best_so_far"]["fast_p"]["1"] for c in run.turns], marker="v", linestyle="--",
                label="fast_1 best so far")
    ax.set_xticks(turns)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("turn")
    ax.set_title(f"{run.label}: refinement turns", loc="left")
    ax.legend(fontsize=8, loc="lower right")
    return _svg(fig)


def _table(run_index: int, run) -> str:
    ks = list(run.turns[0]["pass_at_k"])
    ps = list(run.turns[0]["fast_p"])
    head = (f'<table id="refine-{run_index}"><thead><tr><th>turn</th><th>passes</th>'
            + "".join(f"<th>pass@{k}</th>" for k in ks) + "".join(f"<th>fast_{p}</th>" for p in ps)
            + "<th>geomean speedup</th><th>best so far: passes</th>"
            + "".join(f"<th>best pass@{k}</th>" for k in ks) + "".join(f"<th>best fast_{p}</th>" for p in ps)
            + "</tr></thead><tbody>")
    rows = []
    for c in run.turns:
        b = c["best_so_far"]
        values = ([c["turn"], c["passes"]] + [cells.percent(c["pass_at_k"][k]) for k in ks]
                  + [cells.percent(c["fast_p"][p]) for p in ps] + [cells.times(c["geomean_speedup"]), b["passes"]]
                  + [cells.percent(b["pass_at_k"][k]) for k in ks] + [cells.percent(b["fast_p"][p]) for p in ps])
        rows.append("<tr>" + "".join(f'<td class="num">{e(v)}</td>' for v in values) + "</tr>")
    return head + "".join(rows) + "</tbody></table>"


def refine_html(runs: list) -> list:
    """The section's HTML parts; [] when no run is a refinement."""
    parts = []
    for i, run in enumerate(runs):
        if not run.turns:
            continue
        parts += [f"<h3>{e(run.label)}</h3>", _table(i, run),
                  f'<figure class="plot" id="plot-refine-{i}" aria-label="refinement turns">{_plot(run)}</figure>']
    if not parts:
        return []
    return (['<h2 id="refinement">Refinement turns</h2>',
             '<p class="note">Each turn answers again after the judge\'s feedback on the last answer '
             "(keval generate --turns, docs/generate.md). At turn t: the answers given at that turn; best so "
             "far: a sample counts once any of its turns up to t passed (or passed faster than the bar). The "
             "submissions below are the last turn's.</p>"] + parts)


def refine_markdown(runs: list) -> list:
    lines = []
    for run in runs:
        if not run.turns:
            continue
        lines += ["", f"## {run.label}: refinement turns", "",
                  "| turn | passes | pass@1 | fast_1 | geomean speedup | best passes | best pass@1 | best fast_1 |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for c in run.turns:
            b = c["best_so_far"]
            lines.append(f"| {c['turn']} | {c['passes']} | {cells.percent(c['pass_at_k']['1'])} | "
                         f"{cells.percent(c['fast_p']['1'])} | {cells.times(c['geomean_speedup'])} | {b['passes']} | "
                         f"{cells.percent(b['pass_at_k']['1'])} | {cells.percent(b['fast_p']['1'])} |")
    return lines
