"""Sizing a KernelBench problem for its cases: one forward on the `meta` device (a real CPU run
only for small variants the meta device cannot run), and the CPU-sized variant of a problem
too big for Triton's interpreter (its integer literals divided by a factor)."""

import contextlib
import signal
import symtable

# CPU (Triton interpreter) budget for the small case; bigger problems get a scaled variant.
SMALL_INPUT_ELEMS = 1 << 20
SMALL_OUTPUT_ELEMS = 1 << 20
SMALL_PARAM_ELEMS = 1 << 22
FACTORS = (2, 4, 8, 16, 32, 64, 128, 256)
REAL_RUN_SECONDS = 30  # a scaled variant the meta device cannot run is tried for real on the CPU
META_RUN_SECONDS = 10  # meta runs of recurrent models step through Python: give up on those


def _tensors(value, out=None) -> list:
    import torch

    out = [] if out is None else out
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _tensors(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _tensors(v, out)
    return out


def _stats(tensors) -> tuple:
    seen, elems, nbytes = set(), 0, 0
    for t in tensors:
        key = id(t)
        if key in seen:
            continue
        seen.add(key)
        elems += t.numel()
        nbytes += t.numel() * t.element_size()
    return elems, nbytes


@contextlib.contextmanager
def _time_limit(seconds: int):
    def expire(signum, frame):
        raise TimeoutError(f"took over {seconds} s")

    if not hasattr(signal, "SIGALRM"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def measure(module, device: str = "meta") -> dict:
    """Elements and bytes of inputs, parameters+buffers and outputs of one forward call;
    `error` says where it stopped (the sizes found so far are kept)."""
    import torch

    result = {"input_elems": None, "input_bytes": 0, "param_elems": 0, "param_bytes": 0,
              "output_elems": 0, "output_bytes": 0, "error": None, "device": device}
    stage = "get_inputs()"
    try:
        with torch.random.fork_rng(devices=[]), torch.device(device), \
                _time_limit(REAL_RUN_SECONDS if device != "meta" else META_RUN_SECONDS):
            torch.manual_seed(0)
            inputs = list(module.get_inputs())
            result["input_elems"], result["input_bytes"] = _stats(_tensors(inputs))
            stage = "get_init_inputs()"
            torch.manual_seed(0)
            init = list(module.get_init_inputs())
            stage = "Model(*get_init_inputs())"
            torch.manual_seed(0)
            model = module.Model(*init)
            state = list(model.state_dict().values()) if isinstance(model, torch.nn.Module) else []
            result["param_elems"], result["param_bytes"] = _stats(state)
            stage = "forward"
            with torch.no_grad():
                out = model(*inputs)
            result["output_elems"], result["output_bytes"] = _stats(_tensors(out))
    except BaseException as e:  # noqa: BLE001 - problem code may raise anything
        if isinstance(e, KeyboardInterrupt):
            raise
        result["error"] = f"{stage} on {device}: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
    return result


def fits_cpu(m: dict) -> bool:
    return (m["input_elems"] is not None and m["input_elems"] <= SMALL_INPUT_ELEMS
            and m["output_elems"] <= SMALL_OUTPUT_ELEMS and m["param_elems"] <= SMALL_PARAM_ELEMS)


def class_globals(source: str, path: str) -> set:
    """Module-level names read by Model (and any function but get_inputs/get_init_inputs): a
    scaled variant must not change them, or ModelNew (which has its own copies) would differ."""
    names = set()

    def walk(table):
        for symbol in table.get_symbols():
            if symbol.is_global() and symbol.is_referenced():
                names.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    for child in symtable.symtable(source, path, "exec").get_children():
        if child.get_name() not in ("get_inputs", "get_init_inputs"):
            walk(child)
    return names


def _is_data(value) -> bool:
    return isinstance(value, (int, float, complex, str, bytes, tuple, list, dict, set, type(None)))


def _same(a, b) -> bool:
    try:
        return bool(a == b) if type(a) is type(b) else False
    except Exception:  # noqa: BLE001 - tensors, odd objects
        return a is b


def plan(problem, runtime) -> dict:
    """Cases for one problem: {"cases": [...], "scales": (...), "notes": [...]} or {"skip": why}."""
    with open(problem.path, encoding="utf-8") as f:
        source = f.read()
    try:
        with _time_limit(REAL_RUN_SECONDS):
            base = runtime.load_problem(problem.path, 1, source)
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"skip": f"cannot import: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"}
    missing = [n for n in ("Model", "get_inputs", "get_init_inputs") if not hasattr(base, n)]
    if missing:
        return {"skip": f"defines no {', '.join(missing)}"}
    full = measure(base)
    notes = []
    if full["error"] and full["input_elems"] is None:
        notes.append(f"sizes unknown ({full['error']})")
    elif full["error"]:
        notes.append(f"output size unknown ({full['error']})")

    def case(name, m, small, scale):
        return {"name": name, "small": small,
                "params": {"scale": scale, "input_bytes": m["input_bytes"],
                           "param_bytes": m["param_bytes"], "output_bytes": m["output_bytes"]}}

    if full["input_elems"] is not None and fits_cpu(full):
        return {"cases": [case("full", full, True, 1)], "scales": (1,), "notes": notes, "full": full}

    try:
        guarded = class_globals(source, problem.path)
    except SyntaxError:
        guarded = set()
    full_signature = None
    if full["input_elems"] is not None:
        try:
            full_signature = runtime.signature(runtime.meta_inputs(base))
        except Exception:  # noqa: BLE001
            pass
    best = None  # (input + output elements, factor, sizes) of the smallest usable variant
    for factor in FACTORS:
        try:
            module = runtime.load_problem(problem.path, factor, source)
        except BaseException as e:  # noqa: BLE001
            if isinstance(e, KeyboardInterrupt):
                raise
            continue
        changed = [n for n in guarded if n in vars(base) and _is_data(vars(base)[n])
                   and not _same(vars(base)[n], vars(module).get(n))]
        if changed:
            notes.append(f"no CPU-sized variant: Model reads module-level {', '.join(sorted(changed))}")
            break
        m = measure(module)
        if m["input_elems"] is None:
            continue
        if m["error"] and m["input_elems"] <= SMALL_INPUT_ELEMS and m["param_elems"] <= SMALL_PARAM_ELEMS:
            m = measure(module, "cpu")
        if m["error"]:
            continue
        try:
            if full_signature is not None and runtime.signature(runtime.meta_inputs(module)) == full_signature:
                continue
        except Exception:  # noqa: BLE001 - the runtime could not tell this variant apart either
            continue
        size = m["input_elems"] + m["output_elems"]
        if best is None or size < best[0]:
            best = (size, factor, m)
        if fits_cpu(m):
            break
    full_size = (full["input_elems"] or 0) + full["output_elems"]
    if best is not None and (full["input_elems"] is None or best[0] < full_size):
        _, factor, m = best
        notes.append(f"CPU runs the case `scaled_div{factor}`: integer literals >= {runtime.MIN_SCALED} "
                     f"of the module-level sizes divided by {factor}"
                     + ("" if fits_cpu(m) else " (the smallest variant found; still above the CPU budget)"))
        return {"cases": [case("full", full, False, 1), case(f"scaled_div{factor}", m, True, factor)],
                "scales": (1, factor), "notes": notes, "full": full}
    notes.append("no CPU-sized variant found: the CPU runs the problem's own sizes")
    return {"cases": [case("full", full, True, 1)], "scales": (1,), "notes": notes, "full": full}
