"""docs/ holds only what is true now; the dated record is in bench/runs/. No page under docs/
is a dated log, bench/RESULTS.md fits on a screen and links to the runs its figures came from,
and every page the README, docs/ and bench/ name by path exists."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREEN_LINES = 40
DATED_HEADING = re.compile(r"^#+ .*(\d{4}-\d\d-\d\d|\bsession \d+)", re.M | re.I)
# A page named by path in running text: docs/x.md, bench/runs/... (the other top folders'
# paths also name peers' files, such as KernelBench's scripts/).
NAMED_PAGE = re.compile(r"(?<![\w/.-])((?:docs|bench)/[\w./-]*\w)")
MARKDOWN_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def pages():
    yield ROOT / "README.md"
    yield ROOT / "bench" / "RESULTS.md"
    yield ROOT / "bench" / "runs" / "README.md"
    yield from sorted((ROOT / "docs").rglob("*.md"))


def test_no_page_under_docs_is_a_dated_log():
    logs = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        dated = DATED_HEADING.findall(page.read_text())
        if dated:
            logs.append(f"{page.relative_to(ROOT)} ({len(dated)} dated headings, first {dated[0]})")
    assert not logs, "dated logs belong in bench/runs/<date>-<topic>.md: " + "; ".join(logs)


def test_results_fit_on_a_screen_and_link_their_runs():
    text = (ROOT / "bench" / "RESULTS.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= SCREEN_LINES, f"bench/RESULTS.md: {len(lines)} lines, at most {SCREEN_LINES}"
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| figure")]
    assert rows, "bench/RESULTS.md has no table of figures"
    for row in rows:
        links = MARKDOWN_LINK.findall(row)
        assert any(link.startswith("runs/") for link in links), \
            f"bench/RESULTS.md: a figure without the run it came from: {row[:80]}"


def test_every_page_named_by_path_exists():
    missing = []
    for page in pages():
        text = page.read_text()
        for link in MARKDOWN_LINK.findall(text):
            if "://" not in link and re.search(r"\w", link) and not (page.parent / link).exists():
                missing.append(f"{page.relative_to(ROOT)}: link {link}")
        for named in NAMED_PAGE.findall(text):
            if "<" in named or "*" in named or re.search(r"/[A-Z]{2,}", named):
                continue
            if not (ROOT / named).exists() and not (ROOT / named.rstrip(".")).exists():
                missing.append(f"{page.relative_to(ROOT)}: {named}")
    assert not missing, "no such file: " + "; ".join(sorted(set(missing)))


def test_every_run_is_listed():
    index = (ROOT / "bench" / "runs" / "README.md").read_text()
    runs = [p for p in (ROOT / "bench" / "runs").rglob("*.md") if p.name != "README.md"]
    unlisted = [p.relative_to(ROOT / "bench" / "runs").as_posix() for p in runs
                if f"({p.relative_to(ROOT / 'bench' / 'runs').as_posix()})" not in index]
    assert not unlisted, "bench/runs/README.md does not list: " + ", ".join(sorted(unlisted))
