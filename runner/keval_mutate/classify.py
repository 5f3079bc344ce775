"""A mutant's fate from its result: killed by any verdict but pass, survived on pass, invalid
when the mutated code is not a program (it never got to be judged as a kernel). A survivor
becomes equivalent only when the differential check (differential.py) finds no input it gets
wrong."""

# Verdicts that say the code never ran as a kernel: a broken mutant, not a kill.
INVALID_VERDICTS = {"bad_submission", "missing_entry", "compile_error"}

KILLED, SURVIVED, EQUIVALENT, INVALID, UNJUDGED = "killed", "survived", "equivalent", "invalid", "unjudged"


def fate(mutant: dict, result) -> tuple:
    """(fate, verdict, reason) of one index entry and its results.jsonl object (None: none)."""
    if mutant.get("invalid"):
        return INVALID, "", mutant["invalid"]
    if result is None:
        return UNJUDGED, "", "no result: the run left it unjudged (run keval mutate again)"
    verdict = result.get("verdict", "")
    reasons = result.get("reasons") or []
    reason = str(reasons[0]) if reasons else ""
    if verdict == "pass":
        return SURVIVED, verdict, reason
    if verdict in INVALID_VERDICTS:
        return INVALID, verdict, reason
    return KILLED, verdict, reason
