"""The judge's word on one answer, as the next turn's user message (prompts/refine.v<N>.txt,
template id keval.refine.v<N>): the verdict, the first reason (it names the first failing case
and element), how many reasons follow, and the speedup with its interval when it was timed."""
from . import prompt_template

VERSION = 1
TEMPLATE_ID = f"keval.refine.v{VERSION}"
REASON_CHARS = 1500  # one reason is enough to act on; a traceback can be pages long


def speedup_line(result: dict) -> str:
    speedup, interval = result.get("speedup"), result.get("speedup_ci")
    if speedup is None:
        return ""
    line = f"Speedup over the baseline: {speedup:.3g}x"
    if interval and len(interval) == 2 and None not in interval:
        line += f" (95% interval {interval[0]:.3g}x to {interval[1]:.3g}x)"
    return line + "."


def details(result: dict) -> str:
    reasons = result.get("reasons") or []
    lines = []
    if reasons:
        first = reasons[0] if len(reasons[0]) <= REASON_CHARS else reasons[0][:REASON_CHARS] + " ..."
        lines.append(f"First problem: {first}")
        if len(reasons) > 1:
            lines.append(f"({len(reasons) - 1} more like it.)")
    timed = speedup_line(result)
    if timed:
        lines.append(timed)
    return "\n".join(lines)


def feedback_message(result: dict) -> dict:
    """The user message for the next turn, from the answer's keval run result."""
    verdict = result.get("verdict") or "not judged"
    values = {"verdict": verdict, "details": details(result), "goal": ", faster" if verdict == "pass" else ""}
    path = prompt_template.template_path("refine", VERSION)
    sections = prompt_template.read_sections(path)
    text = prompt_template.fill(sections["user"], values, path)
    return {"role": "user", "content": "\n".join(l for l in text.splitlines() if l.strip()) + "\n"}
