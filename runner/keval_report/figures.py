"""The report's plots, drawn by matplotlib as inline SVG (no script, no network): the speedup
distribution, achieved throughput against the GPU's ceilings (a roofline), verdicts per
category, and latency against problem size. A plot with nothing to show says why instead."""

import io
import math
import os
import tempfile

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("MPLCONFIGDIR", tempfile.mkdtemp(prefix="keval-mpl-"))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
matplotlib.rcParams.update({"svg.fonttype": "none", "font.size": 9, "svg.hashsalt": "keval"})
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

# One colour per verdict from colour-blind-safe sets (Okabe-Ito, Paul Tol's muted), the classes
# read side by side (compile_error and runtime_error, mismatch and nan_mismatch, wrong_shape and
# wrong_dtype) far apart with deuteranopia and protanopia too (tests/e2e/test_report_plots.py).
VERDICT_COLOURS = {"pass": "#009E73", "mismatch": "#D55E00", "nan_mismatch": "#F0E442",
                   "compile_error": "#0072B2", "runtime_error": "#E69F00", "wrong_shape": "#CC79A7",
                   "wrong_dtype": "#999933", "no_kernel": "#332288", "library_fallback": "#88CCEE",
                   "missing_entry": "#56B4E9", "input_mutated": "#882255", "out_of_bounds": "#AA4499",
                   "crash": "#000000", "timeout": "#777777", "bad_submission": "#DDCC77",
                   "tampering": "#661100", "nondeterministic": "#44AA99"}
# Tasks in the scatter plots: Okabe-Ito's eight colours, then the same with another marker, so
# no two tasks share both (tab20's pairs of one hue read as one task).
TASK_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
TASK_MARKERS = ["o", "s", "^", "D", "v", "P", "X"]


def task_style(i: int) -> dict:
    """The colour and marker of the i-th task of a scatter plot."""
    return {"color": TASK_COLOURS[i % len(TASK_COLOURS)],
            "marker": TASK_MARKERS[(i // len(TASK_COLOURS)) % len(TASK_MARKERS)]}


def clock(runs: list) -> str:
    """What the times were measured on and with, as the runs' summaries say: "CPU, Triton
    interpreter wall clock" or "NVIDIA H100, CUDA events"; runs that differ are each named."""
    said = []
    for run in runs:
        environment = run.summary.get("environment") or {}
        if environment.get("device_mode") == "cuda":
            where = f"{environment.get('gpu') or 'GPU'}, CUDA events"
        else:
            where = "CPU, Triton interpreter wall clock"
        if where not in said:
            said.append(where)
    return " / ".join(said)


def _svg(fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _nothing(title: str, why: str) -> str:
    fig, ax = plt.subplots(figsize=(5.5, 1.4))
    ax.axis("off")
    ax.set_title(title, loc="left")
    ax.text(0.0, 0.4, why, fontsize=9, color="#555555", transform=ax.transAxes)
    return _svg(fig)


def speedup_distribution(runs: list) -> str:
    baselines = sorted({run.summary.get("speedup_baseline") or "baseline" for run in runs})
    title = f"Speedup of passing submissions over {' / '.join(baselines)} ({clock(runs)})"
    series = [(run.label, [r["speedup"] for r in run.results if r.get("verdict") == "pass" and r.get("speedup")])
              for run in runs]
    series = [(label, values) for label, values in series if values]
    if not series:
        return _nothing(title, "No passing submission was timed in these runs.")
    logs = [math.log2(v) for _, values in series for v in values]
    low, high = math.floor(min(logs + [0])), math.ceil(max(logs + [0])) or 1
    bins = [low + i * 0.25 for i in range(int((high - low) / 0.25) + 2)]
    fig, ax = plt.subplots(figsize=(6.5, 3))
    ax.hist([[math.log2(v) for v in values] for _, values in series], bins=bins,
            label=[label for label, _ in series], stacked=False)
    ax.axvline(0, color="#333333", linewidth=1, linestyle="--")
    ticks = range(low, high + 1)
    ax.set_xticks(list(ticks), [f"{2 ** t:g}x" for t in ticks])
    ax.set_xlabel("speedup (log scale; right of the dashed line: faster than the baseline)")
    ax.set_ylabel("submissions")
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_title(title, loc="left")
    if len(series) > 1:
        ax.legend()
    return _svg(fig)


def _ceilings(run):
    raw = (run.summary.get("environment") or {}).get("ceilings") or {}
    bandwidth = raw.get("copy_gbps")
    peaks = [v for k, v in raw.items() if isinstance(v, (int, float)) and k.endswith("tflops")]
    return bandwidth, max(peaks) if peaks else None


def roofline(runs: list) -> str:
    title = f"Achieved throughput against the GPU's ceilings (roofline; {clock(runs)})"
    points = []
    for run in runs:
        for r in run.results:
            for c in r.get("cases") or []:
                gbps, tflops = c.get("achieved_gbps"), c.get("achieved_tflops")
                if gbps and tflops and gbps > 0 and tflops > 0:
                    points.append((run, r["task"], tflops * 1e3 / gbps, tflops))
    if not points:
        return _nothing(title, "Not measured: achieved GB/s and TFLOP/s come from GPU timing "
                               "(CPU runs time the interpreter's wall clock).")
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    tasks = sorted({task for _, task, _, _ in points})
    for i, task in enumerate(tasks):
        xs = [x for _, t, x, _ in points if t == task]
        ys = [y for _, t, _, y in points if t == task]
        ax.scatter(xs, ys, s=14, label=task, **task_style(i))
    bandwidth, peak = _ceilings(runs[0])
    if bandwidth and peak:
        xs = [10 ** (i / 10) for i in range(-30, 51)]
        ax.plot(xs, [min(peak, bandwidth * x / 1e3) for x in xs], color="#333333", linewidth=1,
                label="ceiling (copy bandwidth, best matmul rate)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per byte)")
    ax.set_ylabel("achieved TFLOP/s")
    ax.set_title(title, loc="left")
    if len(tasks) <= 14:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _svg(fig)


def verdicts_per_category(runs: list) -> str:
    title = "Verdicts per category"
    shown = runs[:4]
    if not any(run.results for run in shown):
        return _nothing(title, "No results.")
    fig, axes = plt.subplots(len(shown), 1, figsize=(6.5, 0.4 + sum(
        0.3 * max(1, len({r.get("category") or "unknown" for r in run.results})) + 0.6 for run in shown)),
        squeeze=False)
    for ax, run in zip(axes[:, 0], shown):
        counts = {}
        for r in run.results:
            key = (r.get("category") or "unknown", r["verdict"])
            counts[key] = counts.get(key, 0) + 1
        categories = sorted({c for c, _ in counts})
        verdicts = sorted({v for _, v in counts}, key=lambda v: (v != "pass", v))
        left = [0] * len(categories)
        for verdict in verdicts:
            widths = [counts.get((c, verdict), 0) for c in categories]
            ax.barh(categories, widths, left=left, color=VERDICT_COLOURS.get(verdict, "#9e9e9e"), label=verdict)
            left = [a + b for a, b in zip(left, widths)]
        ax.set_title(f"{title}: {run.label}" if len(shown) > 1 else title, loc="left")
        ax.set_xlabel("submissions")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return _svg(fig)


def latency_by_size(runs: list) -> str:
    title = f"Latency against problem size ({clock(runs)})"
    points = []
    for run in runs:
        for r in run.results:
            for c in r.get("cases") or []:
                size = run.case_sizes.get((r["task"], c.get("case")))
                if c.get("time_ms") and size:
                    points.append((r["task"], size, c["time_ms"]))
    if not points:
        return _nothing(title, "No timed case in these runs (--no-timing, or nothing passed).")
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    tasks = sorted({t for t, _, _ in points})
    for i, task in enumerate(tasks):
        ax.scatter([s for t, s, _ in points if t == task], [ms for t, _, ms in points if t == task],
                   s=14, label=task, **task_style(i))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("problem size (product of the case's shape symbols)")
    ax.set_ylabel("submission time (ms)")
    ax.set_title(title, loc="left")
    if len(tasks) <= 14:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return _svg(fig)


def all_figures(runs: list) -> list:
    """(anchor, title, svg) of every plot, in page order."""
    return [("plot-speedup", "Speedup distribution", speedup_distribution(runs)),
            ("plot-roofline", "Roofline", roofline(runs)),
            ("plot-verdicts", "Verdicts per category", verdicts_per_category(runs)),
            ("plot-latency", "Latency against problem size", latency_by_size(runs))]
