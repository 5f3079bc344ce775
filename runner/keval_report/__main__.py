"""python -m keval_report OUT... --html FILE.html --md FILE.md [--title T]   (called by `keval report`)

Writes both files; prints one line naming them. A bad input ends with one line naming the file,
exit 2."""

import argparse
import os
import sys

from .errors import ReportError


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m keval_report")
    p.add_argument("outs", nargs="+")
    p.add_argument("--html", required=True)
    p.add_argument("--md", required=True)
    p.add_argument("--title", default="keval report")
    args = p.parse_args(argv)
    try:
        from .runs import read_runs
        runs = read_runs(args.outs)
        from .html_page import render_html
        from .markdown import render_markdown
        page = render_html(runs, args.title)
        text = render_markdown(runs, args.title)
        for path, content in ((args.html, page), (args.md, text)):
            folder = os.path.dirname(os.path.abspath(path))
            os.makedirs(folder, exist_ok=True)
            with open(path, "w") as f:
                f.write(content)
    except ReportError as exc:
        print(f"keval: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"keval: the report needs {exc.name} in the runner's Python "
              f"({sys.executable}); scripts/install-deps.sh installs it", file=sys.stderr)
        return 2
    n = sum(len(run.results) for run in runs)
    print(f"wrote {args.html} and {args.md} ({len(runs)} run(s), {n} submissions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
