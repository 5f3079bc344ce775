"""mutants.md: the report readable, survivors with their diffs."""


def _rate(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def render_markdown(report: dict) -> str:
    suite = report["suite"]
    lines = ["# Mutants", "",
             f"Kill rate {_rate(suite['kill_rate'])}: {suite['killed']} killed, {suite['survived']} survived "
             f"(not checked for equivalence) of {suite['made']} mutants; {suite['invalid']} invalid (not a "
             f"program, counted apart), {suite['unjudged']} unjudged. Device: {report['device_mode'] or '?'}.",
             "", f"Equivalence: {report['equivalence']}.", "",
             "| task | made | killed | survived | invalid | kill rate | golden |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for task, t in report["tasks"].items():
        lines.append(f"| {task} | {t['made']} | {t['killed']} | {t['survived']} | {t['invalid']} | "
                     f"{_rate(t['kill_rate'])} | {t['golden_verdict']} |")
    lines += ["", "## Operators", "", "| operator | made | killed | survived | invalid | kill rate | models |",
              "|---|---:|---:|---:|---:|---:|---|"]
    for name, o in report["operators"].items():
        if not o["made"]:
            continue  # no site for it in these goldens
        lines.append(f"| {name} | {o['made']} | {o['killed']} | {o['survived']} | {o['invalid']} | "
                     f"{_rate(o['kill_rate'])} | {o['models']} |")
    lines += ["", "## Survivors (not checked for equivalence)", ""]
    survivors = [(task, s) for task, t in report["tasks"].items() for s in t["survivors"]]
    if not survivors:
        lines.append("None.")
    for task, s in survivors:
        lines += [f"### {s['id']} (line {s['line']})", "", "```diff", s["diff"].rstrip("\n"), "```", ""]
    invalid = [s for t in report["tasks"].values() for s in t["invalid_mutants"]]
    if invalid:
        lines += ["", "## Invalid (not counted)", ""]
        lines += [f"- {s['id']} (line {s['line']}): {s['verdict'] or 'does not compile'}: {s['reason']}" for s in invalid]
    notes = [f"- {task}: {t['note']}" for task, t in report["tasks"].items() if t.get("note")]
    if notes:
        lines += ["", "## Not counted", ""] + notes
    return "\n".join(lines) + "\n"
