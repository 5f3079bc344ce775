"""keval report: one self-contained HTML page that a real browser (headless Chromium) loads and
runs without console errors, sorts through its DOM, and draws (a screenshot that is not blank);
and a Markdown twin. One small CPU run (timed, against eager) is shared by every test here."""
import html.parser
import json
import shutil
import subprocess

import pytest

from conftest import REPO, run_keval

DEMO_IDS = ("relu_correct", "relu_leaky", "vector_add_correct", "vector_add_torch_only", "row_sum_correct")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A timed CPU run of five of the demo's submissions, its report, and a second folder with
    the same run under another name (a leaderboard of two)."""
    root = tmp_path_factory.mktemp("report")
    lines = [line for line in (REPO / "examples" / "submissions.jsonl").read_text().splitlines()
             if json.loads(line)["id"] in DEMO_IDS]
    (root / "subs.jsonl").write_text("\n".join(lines) + "\n")
    out = root / "demo"
    run_keval("run", "--suite", "suites/keval", "--submissions", root / "subs.jsonl", "--out", out,
              "--device", "cpu", "--baseline", "eager", "--quiet")
    shutil.copytree(out, root / "demo-again")
    page = root / "report.html"
    proc = run_keval("report", out, "--out", page)
    assert "wrote" in proc.stdout
    run_keval("report", out, root / "demo-again", "--out", root / "board.html")
    return root, out, page


def browse(page, *flags, query=""):
    """Chromium's stderr (console messages are logged there as INFO:CONSOLE) and stdout."""
    assert CHROMIUM, "chromium is missing: scripts/install-deps.sh installs it"
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--enable-logging=stderr", "--v=0", *flags, f"file://{page}{query}"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def console_lines(stderr: str) -> list:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


class Rows(html.parser.HTMLParser):
    """The data-v values of one column of a table, in DOM order, and body attributes."""

    def __init__(self, table_id: str, column: int):
        super().__init__()
        self.table_id, self.column, self.values, self.body = table_id, column, [], {}
        self._in_table = self._in_body_rows = False
        self._cell = -1

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if tag == "table":
            self._in_table = attrs.get("id") == self.table_id
        if self._in_table and tag == "tbody":
            self._in_body_rows = True
        if self._in_body_rows and tag == "tr":
            self._cell = -1
        if self._in_body_rows and tag == "td":
            self._cell += 1
            if self._cell == self.column:
                self.values.append(attrs.get("data-v"))

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_table = self._in_body_rows = False


def test_summary_names_the_baseline_it_was_timed_against(report):
    _, out, _ = report
    summary = json.loads((out / "summary.json").read_text())
    assert summary["speedup_baseline"] == "eager"
    assert summary["harness_errors"] == []


def test_page_is_self_contained(report):
    _, _, page = report
    text = page.read_text()
    for needle in ("<link", "src=\"http", "href=\"http", "url(http", "@import", "src='http", "<iframe"):
        assert needle not in text, needle
    assert "<svg" in text and text.count('class="plot"') == 4
    for name in DEMO_IDS:
        assert name in text
    assert "first at [" in text  # relu_leaky's failing tensor: first bad element and values


def test_page_runs_its_script_without_console_errors_in_chromium(report):
    _, _, page = report
    proc = browse(page, "--dump-dom")
    assert console_lines(proc.stderr) == []
    rows = Rows("submissions", 0)
    rows.feed(proc.stdout)
    assert rows.body.get("data-ready") == "1", "the page's script did not finish"
    assert "data-errors" not in rows.body
    assert len(rows.values) == len(DEMO_IDS)


def test_the_filter_box_shows_only_the_rows_that_hold_its_text(report):
    _, _, page = report
    dom = browse(page, "--dump-dom", query="?filter=MISMATCH").stdout  # any case
    table = dom.split('id="submissions"', 1)[1].split("</table>", 1)[0]
    rows = table.split("<tbody>", 1)[1].split("<tr")[1:]
    shown = [row for row in rows if "hidden" not in row.split(">", 1)[0]]
    assert len(rows) == len(DEMO_IDS)
    assert len(shown) == 1 and "relu_leaky" in shown[0], shown
    assert f"1 of {len(DEMO_IDS)} shown" in dom
    unfiltered = browse(page, "--dump-dom").stdout.split('id="submissions"', 1)[1].split("</table>", 1)[0]
    assert "hidden" not in unfiltered


def test_a_console_error_would_fail_the_browser_check(tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text("<html><body><script>undefined_function();</script></body></html>")
    assert any("undefined_function" in line for line in console_lines(browse(broken, "--dump-dom").stderr))


def test_sorting_by_speedup_reorders_the_rows_in_the_dom(report):
    _, _, page = report
    for order, expect_reverse in (("desc", True), ("asc", False)):
        proc = browse(page, "--dump-dom", query=f"?sort=speedup&order={order}")
        rows = Rows("submissions", 3)
        rows.feed(proc.stdout)
        measured = [float(v) for v in rows.values if v not in (None, "")]
        assert len(measured) == 3, rows.values  # the three passing submissions were timed
        assert measured == sorted(measured, reverse=expect_reverse)
        assert all(v in (None, "") for v in rows.values[len(measured):]), "unmeasured rows sort last"


def test_screenshot_is_not_blank(report):
    root, _, page = report
    from PIL import Image

    shot = root / "shot.png"
    browse(page, "--window-size=1280,2000", f"--screenshot={shot}")
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(1 << 24) or []
    assert image.size == (1280, 2000)
    assert len(colours) > 50, "the page drew (almost) nothing"
    white = max(count for count, _ in colours)
    assert white < 0.97 * image.size[0] * image.size[1]


def test_the_page_names_no_folder_of_the_machine(report):
    """Folders given as absolute paths: the page and its Markdown name each run by its folder's
    name, two of one name by their paths below the folders' common parent."""
    root, out, page = report
    twin = root / "elsewhere" / "demo"
    shutil.copytree(out, twin, dirs_exist_ok=True)
    run_keval("report", out, twin, "--out", root / "twins.html")
    for written, labels in ((page, ["From demo."]), (root / "twins.html", ["From demo, elsewhere/demo."])):
        for text in (written.read_text(), written.with_suffix(".md").read_text()):
            assert str(root) not in text and str(REPO) not in text, written
        assert all(label in written.read_text() for label in labels), labels


def test_markdown_report_has_the_summary_and_every_submission(report):
    _, _, page = report
    text = page.with_suffix(".md").read_text()
    assert "| run | submissions | call accuracy | exec accuracy |" in text
    for name in DEMO_IDS:
        assert f"| {name} |" in text
    assert "| pass | 3 |" in text


def test_the_report_prints_the_runs_own_summary_figures(report):
    from test_report_figures import expected_cells, runs_row
    _, out, page = report
    summary = json.loads((out / "summary.json").read_text())
    assert summary["geomean_speedup_ci"], "a timed run with passes has the controller's interval"
    cells = runs_row(page.with_suffix(".md").read_text(), "demo")
    assert (cells[4], cells[6]) == expected_cells(summary)


def test_two_runs_side_by_side_make_a_leaderboard(report):
    root, _, _ = report
    board = (root / "board.html").read_text()
    assert 'id="leaderboard"' in board and "demo-again" in board
    rows = Rows("leaderboard", 0)
    rows.feed(board)
    assert len(rows.values) == 2


def test_a_folder_that_is_not_a_run_is_a_one_line_error(tmp_path):
    proc = run_keval("report", tmp_path, "--out", tmp_path / "r.html", check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("keval: ") and "summary.json" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
