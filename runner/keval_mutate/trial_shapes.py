"""The shapes of the differential check: a task's small cases, their neighbours, raised, redrawn.

Each small case is anchored as it is, with every size one larger and one smaller, and as one row
of its width. Then it is raised: one symbol at a time well past the case (to the largest value
of that symbol among all the task's cases, small or not, and at least RAISE x the case's), in
two forms (odd in an even number of blocks, even in an odd number: RAISED_FORMS), the other
symbols halved to fit RAISED_BUDGET x the largest small case: the loops, chunks and splits a
kernel starts only past the small sizes (bench/runs/2026-12-05-mutation-cpu-7.md: softmax_dim0's
splits, softmax_wide's chunks, group_norm's chunks of a group) get trials, at a size the CPU interpreter still finishes (within_time).
The drawn trials take the cases as templates in turn and draw a new value for every integer
param (its shape symbols): primes, odd sizes, even sizes that are not a power of two, powers of
two and their neighbours, tiny sizes (1, 2, 3), the template's own value. The draw is
log-uniform up to 1.5x the template's value (from 1, or from half the template's value), and
the product of the symbols stays within the largest small case's, so the CPU interpreter
finishes. A shape the task does not allow (the golden fails on it, or its make_inputs raises) is
skipped by the check, not held against the mutant: the golden draws the domain. Flags
(`outliers = true`) are kept or set per drawn trial.
"""
import math
import random

PLAN_VERSION = 4  # part of the evidence's fingerprint: a new plan checks again

RAISE = 4  # a raised symbol is at least this many times the case's
RAISED_BUDGET = 4  # a raised trial holds at most this many times the largest small case's elements
RAISED_CALL_S = 1.0  # a raised trial's golden call, estimated from the case's own, at most this many CPU seconds
# odd and even, neither a power of two nor a multiple of any block, and cut into an even and an
# odd number of blocks whatever power of two the kernel's block is (softmax_wide's chunks of
# 16,384, six padded to eight, are what a merge widened on even counts needs)
RAISED_FORMS = ("odd_in_even_blocks", "even_in_odd_blocks")
KINDS = ("template", "prime", "odd", "even_not_power_of_two", "power_of_two", "power_of_two_plus_one",
         "power_of_two_minus_one", "tiny")


def form_sizes(form: str) -> list:
    """The sizes of a raised form, ascending. 3 x 2^j - 1 is odd and cut into 3 x 2^(j-b) blocks
    of 2^b (even, no power of two) for every b < j, with a tail; 2^j + 2 is even and cut into
    2^(j-b) + 1 blocks (odd) for every 2 <= b <= j, with a tail."""
    if form == "odd_in_even_blocks":
        return [3 * 2 ** j - 1 for j in range(1, 48)]
    return [2 ** j + 2 for j in range(2, 48)]


def raised_size(value: int, form: str, cap: int) -> int:
    """The size of the form nearest above value, or below it where that passes cap."""
    sizes = form_sizes(form)
    up = next(n for n in sizes if n >= value)
    return up if up <= cap else max([n for n in sizes if n <= cap], default=sizes[0])


def is_prime(n: int) -> bool:
    if n < 2:
        return False
    return all(n % d for d in range(2, int(math.isqrt(n)) + 1))


def shaped(value: int, kind: str, rng: random.Random) -> int:
    """value bent into a size of the given kind (at least 1)."""
    value = max(1, value)
    if kind in RAISED_FORMS:
        return raised_size(value, kind, cap=value)
    if kind == "prime":
        n = max(2, value)
        while not is_prime(n):
            n += 1
        return n
    if kind == "odd":
        return value | 1
    if kind == "even_not_power_of_two":
        n = max(6, value + (value % 2))
        return n + 2 if n & (n - 1) == 0 else n
    power = 1 << max(0, round(math.log2(value)))
    if kind == "power_of_two":
        return power
    if kind == "power_of_two_plus_one":
        return power + 1
    if kind == "power_of_two_minus_one":
        return max(1, power * 2 - 1) if power == 1 else power - 1
    if kind == "tiny":
        return rng.choice((1, 2, 3))
    return value


def symbols(case: dict) -> list:
    return [k for k, v in case.items() if isinstance(v, int) and not isinstance(v, bool) and k != "name"]


def size_of(case: dict) -> int:
    return math.prod(max(1, case[k]) for k in symbols(case))


def fit(case: dict, kinds: dict, budget: int, keep: str = "") -> None:
    """Halves the other symbols before the largest until the case fits the budget: a wide row
    stays wide (its looped kernel is what the case is for), its row count shrinks. `keep` is
    never halved (the raised symbol)."""
    names = sorted((k for k in symbols(case) if k != keep), key=lambda k: case[k])
    for name in names:
        while size_of(case) > budget and case[name] > 1:
            case[name] = max(1, case[name] // 2)
            if not kinds.get(name, "").endswith("halved to fit"):
                kinds[name] = kinds.get(name, "as the case") + ", halved to fit"


def anchored(templates: list, budget: int) -> list:
    """Per case, its variants: as it is, every size one larger and one smaller (the parity and
    the power-of-two-ness of the task's own sizes flipped, at the scale the case chose), and one
    row (every size but the largest 1: a single row as wide as the case's)."""
    out = []
    for template in templates:
        variants = []
        for shift in (0, 1, -1):
            case = dict(template)
            for name in symbols(template):
                case[name] = max(1, template[name] + shift)
            kinds = {"shape": "a case of the task" if shift == 0 else f"a case of the task, sizes {shift:+d}"}
            fit(case, kinds, budget)
            variants.append({"case": case, "kinds": kinds})
        case, widest = dict(template), max(symbols(template), key=lambda k: template[k], default=None)
        for name in symbols(template):
            if name != widest:
                case[name] = 1
        variants.append({"case": case, "kinds": {"shape": "a case of the task, one row"}})
        out.append(variants)
    return out


def raised(templates: list, cases: list, budget: int) -> list:
    """Per case, per symbol, its raised variants (one per RAISED_FORMS): that symbol past every
    small size, the others halved to fit RAISED_BUDGET x budget."""
    out = []
    for template in templates:
        for name in symbols(template):
            largest = max([c[name] for c in cases if isinstance(c.get(name), int)] + [template[name]])
            value = min(max(largest, RAISE * max(1, template[name])), RAISED_BUDGET * budget)
            variants = []
            for form in RAISED_FORMS:
                case = dict(template)
                case[name] = raised_size(value, form, RAISED_BUDGET * budget)
                kinds = {"shape": "a case of the task, raised", name: f"raised past the small cases, {form}"}
                fit(case, kinds, RAISED_BUDGET * budget, keep=name)
                variants.append({"case": case, "kinds": kinds,
                                 "raised": {"symbol": name, "form": form, "from": template[name]}})
            out.append({"template": template["name"], "symbol": name, "variants": variants})
    return out


def within_time(trial: dict, case_s: float) -> dict:
    """The raised trial, its symbol lowered (in its form, at least twice the case's value) where
    the golden's call, estimated as the case's own (case_s) times the raise, would pass
    RAISED_CALL_S: the interpreter's cost grows with the programs a kernel launches, and a raised
    symbol may be what counts them (cumsum's rows: 16,385 rows take 80 s a call)."""
    raised = trial["raised"]
    name, start = raised["symbol"], max(1, raised["from"])
    estimate = case_s * trial["case"][name] / start
    if estimate <= RAISED_CALL_S:
        return trial
    value = max(2 * start + 1, int(trial["case"][name] * RAISED_CALL_S / estimate))
    case = {**trial["case"], name: shaped(value, raised["form"], random.Random(0))}  # its form, below value
    kinds = {**trial["kinds"], name: f"{trial['kinds'][name]}, lowered from {trial['case'][name]} to fit "
                                     f"{RAISED_CALL_S:.0f} CPU s a call"}
    return {**trial, "case": case, "kinds": kinds}


def draw_case(template: dict, budget: int, rng: random.Random) -> tuple:
    """(case, {symbol: kind}): the template with each symbol redrawn, within budget elements."""
    case, kinds = dict(template), {}
    for name in symbols(template):
        top = max(2, int(template[name] * 1.5))
        # two draws in five near the template's own scale: the wide cases' kernels (looped, split)
        # get trials too, not only the small sizes a log-uniform draw favours
        bottom = max(1, template[name] // 2) if rng.random() < 0.4 else 1
        kind = rng.choice(KINDS)
        kinds[name] = kind
        case[name] = shaped(round(math.exp(rng.uniform(math.log(bottom), math.log(top)))), kind, rng)
    fit(case, kinds, budget)
    for flag in [k for k, v in template.items() if isinstance(v, bool)]:
        case[flag] = rng.random() < 0.5 or template[flag]
    return case, kinds


def plan(templates: list, trials: int, seed: int, cases: list = ()) -> tuple:
    """(anchored, raised, drawn): per case its variants (anchored()), each {case, kinds}; per
    case and symbol its raised variants (raised(); `cases` are the params of all the task's
    cases, whose largest sizes the raise reaches); then `trials` draws around the cases in turn."""
    rng = random.Random(seed)
    budget = max(size_of(t) for t in templates)
    drawn = []
    while len(drawn) < trials:
        case, kinds = draw_case(templates[len(drawn) % len(templates)], budget, rng)
        drawn.append({"case": case, "kinds": kinds})
    return anchored(templates, budget), raised(templates, list(cases) + templates, budget), drawn
