"""mutants.md: the report readable, survivors with their diffs."""


def _rate(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def render_markdown(report: dict) -> str:
    suite = report["suite"]
    lines = ["# Mutants", "",
             f"Kill rate {_rate(suite['kill_rate'])} of the non-equivalent mutants: {suite['killed']} killed, "
             f"{suite['survived']} survived, {suite['equivalent']} equivalent of {suite['made']} mutants; "
             f"{suite['invalid']} invalid (not a program, counted apart), {suite['unjudged']} unjudged. "
             f"Device: {report['device_mode'] or '?'}.",
             "", f"Equivalence: {report['equivalence']}.", "",
             *([f"**Partial**: {report['partial']}.", ""] if report.get("partial") else []),
             "| task | made | killed | survived | equivalent | invalid | kill rate | golden |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for task, t in report["tasks"].items():
        lines.append(f"| {task} | {t['made']} | {t['killed']} | {t['survived']} | {t['equivalent']} | {t['invalid']} | "
                     f"{_rate(t['kill_rate'])} | {t['golden_verdict']} |")
    lines += ["", "## Operators", "",
              "| operator | made | killed | survived | equivalent | invalid | kill rate | models |",
              "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, o in report["operators"].items():
        if not o["made"]:
            continue  # no site for it in these goldens
        lines.append(f"| {name} | {o['made']} | {o['killed']} | {o['survived']} | {o['equivalent']} | {o['invalid']} | "
                     f"{_rate(o['kill_rate'])} | {o['models']} |")
    for title, key in (("Survivors", "survivors"), ("Equivalent", "equivalents")):
        lines += ["", f"## {title}", ""]
        listed = [s for t in report["tasks"].values() for s in t[key]]
        if not listed:
            lines.append("None.")
        for s in listed:
            lines += [f"### {s['id']} (line {s['line']})", ""]
            if s["equivalence"]:
                lines += [s["equivalence"] + (f" (evidence: `{s['evidence_file']}`)" if s["evidence_file"] else ""), ""]
            lines += ["```diff", s["diff"].rstrip("\n"), "```", ""]
    invalid = [s for t in report["tasks"].values() for s in t["invalid_mutants"]]
    if invalid:
        lines += ["", "## Invalid (not counted)", ""]
        lines += [f"- {s['id']} (line {s['line']}): {s['verdict'] or 'does not compile'}: {s['reason']}" for s in invalid]
    notes = [f"- {task}: {t['note']}" for task, t in report["tasks"].items() if t.get("note")]
    if notes:
        lines += ["", "## Not counted", ""] + notes
    return "\n".join(lines) + "\n"
