"""Each submission's per-case correctness as results.jsonl's `case_checks` give it (one line per
call: case, dtype, seed, pass or the failure class, judged by keval's judge): a case passes when
every call of it passed. Rendered only; nothing here judges."""

from . import cells


def _by_case(checks: list) -> dict:
    """Case name -> whether every call of it passed, in the order the calls came."""
    cases = {}
    for check in checks:
        name = check.get("case") or "?"
        cases[name] = cases.get(name, True) and check.get("result") == "pass"
    return cases


def checks_of(result: dict):
    """The result's checks, or None where it was judged before keval kept them."""
    checks = result.get("case_checks")
    return checks if isinstance(checks, list) else None


def case_summary(result: dict):
    """("2/3 cases; fails odd_37x1001", share of cases passed) or ("–", None) when none is known."""
    checks = checks_of(result)
    if not checks:
        return "–", None
    cases = _by_case(checks)
    passed = sum(cases.values())
    failing = [name for name, ok in cases.items() if not ok]
    text = f"{passed}/{len(cases)} cases"
    if failing:
        text += "; fails " + ", ".join(failing[:3]) + (f" and {len(failing) - 3} more" if len(failing) > 3 else "")
    return text, passed / len(cases)


def _shapes(shapes) -> str:
    if not isinstance(shapes, list):
        return "–"
    return ", ".join("(" + ", ".join(str(d) for d in s) + ("," if len(s) == 1 else "") + ")"
                     if isinstance(s, list) else str(s) for s in shapes)


def check_rows(result: dict) -> list:
    """One row a call: case, dtype, seed, output shapes, result, max abs err, reason."""
    return [[c.get("case"), c.get("dtype"), c.get("seed"), _shapes(c.get("shapes")), c.get("result"),
             cells.number(c.get("max_abs_err")), c.get("reason") or ""] for c in checks_of(result) or []]
