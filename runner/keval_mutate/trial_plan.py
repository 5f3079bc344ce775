"""The trials of the differential check, in the order it runs them: which shape (trial_shapes),
dtype, value regime and bent inputs (trial_values) each holds.

Coverage, not chance: every small case meets every regime in every dtype of it (the first
floating input bent, the case's variants taking turns); where make_inputs returns more than one
floating tensor, every regime meets every dtype again with all of them bent (the cases taking
turns); every raised shape meets RAISED_REGIMES, its two forms and the dtypes taking turns (huge
values in a dtype that holds them past float16's range, where the task has one); then the drawn
trials take the regimes, and the bent inputs (each in turn, then all), in turn.
"""
from .trial_shapes import plan
from .trial_values import ALL, FIRST, REGIMES

# the regimes a raised shape meets, and which inputs each bends: a whole row and column far below
# zero (a padded chunk's or split's maximum taken as 0; the rest as drawn, so a loop wrong on
# plain values shows too), and huge values past float16's range in every input
RAISED_REGIMES = (("negative_row_and_column", FIRST), ("huge_peak_first", ALL))


def _dtypes(task: dict, template: dict) -> list:
    return template.get("dtypes") or task["dtypes"]


def _which_in_turn(i: int, floating: int):
    """The i-th drawn trial's bent inputs: the first, the second, ..., then all of them."""
    k = i % (floating + 1)
    return ALL if k == floating else (FIRST if k == 0 else k)


def trials_of(task: dict, trials: int, seed: int, floating: int = 1) -> list:
    """Every trial: case params, its kinds, dtype, regime, which inputs are bent, seed, the
    template's tolerance overrides. `floating`: how many floating tensors make_inputs returns."""
    templates = [{**c.get("params", {}), "name": c["name"]} for c in task["templates"]]
    cases = [c.get("params", {}) for c in task.get("cases", [])]
    anchored, raised, drawn = plan(templates, trials, seed, cases)
    by_name = {t["name"]: t for t in task["templates"]}
    chosen = []
    for variants, template in zip(anchored, task["templates"]):
        for r, regime in enumerate(REGIMES):
            for d, dtype in enumerate(_dtypes(task, template)):
                chosen.append((variants[(r + d) % len(variants)], template, regime, dtype, FIRST))
    if floating > 1:
        for r, regime in enumerate(REGIMES[1:], 1):  # as_drawn bends nothing
            for d, dtype in enumerate(task["dtypes"]):
                able = [i for i, t in enumerate(task["templates"]) if dtype in _dtypes(task, t)]
                if able:
                    c = able[(r + d) % len(able)]
                    variants = anchored[c]
                    chosen.append((variants[(r + d + 1) % len(variants)], task["templates"][c], regime, dtype, ALL))
    for k, entry in enumerate(raised):
        template = by_name[entry["template"]]
        dtypes = _dtypes(task, template)
        for r, (regime, which) in enumerate(RAISED_REGIMES):
            variant = entry["variants"][(r + k) % len(entry["variants"])]
            # values past float16's range exist only in bfloat16 and float32 (fused_add_rms_norm's
            # looped kernel converting the residual to float16 met huge values in float16 alone)
            pool = [d for d in dtypes if d != "float16"] if regime.startswith("huge") else dtypes
            pool = pool or dtypes
            chosen.append((variant, template, regime, pool[(r + k) % len(pool)], which))
    for i, trial in enumerate(drawn):
        template = task["templates"][i % len(templates)]
        dtypes = _dtypes(task, template)
        chosen.append((trial, template, REGIMES[(i // 3) % len(REGIMES)], dtypes[i % len(dtypes)],
                       _which_in_turn(i, floating)))
    out = []
    for i, (trial, template, regime, dtype, which) in enumerate(chosen):
        tolerance = {**task["tolerance"].get(dtype, {}), **template.get("tolerance", {}).get(dtype, {})}
        case = {**trial["case"], "name": f"differential_{i}"}
        out.append({"index": i, "case": case, "kinds": trial["kinds"], "dtype": dtype, "regime": regime,
                    "which": which, "raised": trial.get("raised"), "seed": seed * 1000 + i,
                    "atol": float(tolerance.get("atol", 0.0)), "rtol": float(tolerance.get("rtol", 0.0)),
                    "template": template["name"]})
    return out
