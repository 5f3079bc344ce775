"""keval report's plots: verdicts in colours a reader with a colour-vision deficiency still tells
apart where classes are read side by side, tasks that never share both colour and marker, and
titles that say what the times were measured on and with (CPU interpreter wall clock or the
GPU's CUDA events)."""
import json
import shutil
import sys

from conftest import REPO, run_keval

sys.path.insert(0, str(REPO / "runner"))
from keval_report.figures import TASK_COLOURS, VERDICT_COLOURS, task_style  # noqa: E402

FIXTURE = REPO / "tests" / "e2e" / "fixtures" / "sampled_run"
VERDICTS = ("pass bad_submission missing_entry compile_error runtime_error crash timeout wrong_shape wrong_dtype "
            "mismatch nan_mismatch nondeterministic input_mutated out_of_bounds no_kernel library_fallback "
            "tampering").split()
READ_SIDE_BY_SIDE = [("compile_error", "runtime_error"), ("mismatch", "nan_mismatch"),
                     ("wrong_shape", "wrong_dtype"), ("pass", "mismatch"), ("no_kernel", "library_fallback")]
# Deuteranopia and protanopia as linear RGB matrices (Viénot, Brettel and Mollon, 1999).
DEFICIENCIES = {"deuteranopia": ((0.29275, 0.70725, 0), (0.29275, 0.70725, 0), (-0.02234, 0.02234, 1)),
                "protanopia": ((0.11238, 0.88762, 0), (0.11238, 0.88762, 0), (0.00401, -0.00401, 1))}


def linear(hex_colour: str) -> tuple:
    srgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    return tuple(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb)


def lab(rgb: tuple) -> tuple:
    x = 0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]
    y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
    z = 0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x / 0.9505, y, z / 1.089)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def seen(hex_colour: str, deficiency=None) -> tuple:
    rgb = linear(hex_colour)
    if deficiency:
        rgb = tuple(max(0.0, min(1.0, sum(m * c for m, c in zip(row, rgb)))) for row in DEFICIENCIES[deficiency])
    return lab(rgb)


def distance(a: str, b: str, deficiency=None) -> float:
    return sum((p - q) ** 2 for p, q in zip(seen(a, deficiency), seen(b, deficiency))) ** 0.5


def test_every_verdict_has_a_colour_of_its_own():
    assert sorted(VERDICT_COLOURS) == sorted(VERDICTS)
    colours = list(VERDICT_COLOURS.values())
    closest = min(distance(a, b) for i, a in enumerate(colours) for b in colours[i + 1:])
    assert closest > 10, f"two verdicts nearly alike (ΔE {closest:.1f})"


def test_verdicts_read_side_by_side_stay_apart_with_a_colour_vision_deficiency():
    for a, b in READ_SIDE_BY_SIDE:
        for deficiency in (None, *DEFICIENCIES):
            gap = distance(VERDICT_COLOURS[a], VERDICT_COLOURS[b], deficiency)
            assert gap > 25, f"{a} and {b} are ΔE {gap:.1f} apart ({deficiency or 'normal vision'})"


def test_no_two_tasks_share_colour_and_marker():
    styles = [tuple(sorted(task_style(i).items())) for i in range(len(TASK_COLOURS) * 4)]
    assert len(set(styles)) == len(styles)
    neighbours = [distance(task_style(i)["color"], task_style(i + 1)["color"]) for i in range(len(TASK_COLOURS) - 1)]
    assert min(neighbours) > 20, neighbours  # tab20 put two shades of one hue side by side


def titles(page: str) -> str:
    """The plots' text (matplotlib writes SVG text as text)."""
    return " ".join(part.split("</text>")[0] for part in page.split("<text")[1:])


def test_plot_titles_name_the_device_and_the_clock(tmp_path):
    cpu = tmp_path / "cpu_run"
    shutil.copytree(FIXTURE, cpu)
    run_keval("report", cpu, "--out", tmp_path / "cpu.html")
    text = titles((tmp_path / "cpu.html").read_text())
    assert "Speedup of passing submissions over eager (CPU, Triton interpreter wall clock)" in text, text
    assert "Latency against problem size (CPU, Triton interpreter wall clock)" in text, text

    gpu = tmp_path / "gpu_run"
    shutil.copytree(FIXTURE, gpu)
    summary = json.loads((gpu / "summary.json").read_text())
    summary["environment"] = {"device_mode": "cuda", "gpu": "NVIDIA H100 80GB HBM3"}
    (gpu / "summary.json").write_text(json.dumps(summary))
    run_keval("report", gpu, "--out", tmp_path / "gpu.html")
    text = titles((tmp_path / "gpu.html").read_text())
    assert "Latency against problem size (NVIDIA H100 80GB HBM3, CUDA events)" in text, text
    assert "(roofline; NVIDIA H100 80GB HBM3, CUDA events)" in text, text
