"""KernelBench's own correctness criterion, as its harness applies it, weaknesses included
(ScalingIntelligence/KernelBench 423217d: src/kernelbench/eval.py eval_kernel_against_ref and
run_and_check_correctness, with the settings of scripts/eval_from_generations.py). Used by
judges.py, in a fresh process per submission (eval_from_generations gives each sample a pool
worker of its own):
- loading (eval.py load_original_model_and_inputs, load_custom_model_with_tempfile): the problem's
  source exec'd into a fresh dict; the submission written to a temporary .py and imported as
  `temp_module` (the loader of the triton backend: keval's KernelBench tasks ask for Triton), both
  in ONE process, so a torch function the submission replaces is replaced for the reference too;
- seeds (eval.py set_seed = torch.manual_seed + torch.cuda.manual_seed): set to seed_num = 42
  (eval_kernel_against_ref's default; eval_from_generations passes none) before
  get_init_inputs() and before each constructor. Nothing is copied between the models: ModelNew
  has Model's weights only when it draws from the RNG in the same order;
- inputs (eval.py _process_input_tensor): every tensor of get_init_inputs() and get_inputs() is
  cast to the precision (fp32, eval_from_generations' default) and moved to the device, so
  integer inputs (indices, class targets) reach both models as floats;
- compiled: the module imports and defines ModelNew, and under no_grad ModelNew(*init inputs)
  builds and moves to the device. A RuntimeError while building counts as compiled but incorrect;
  any other exception escapes eval_kernel_against_ref and eval_from_generations'
  evaluate_single_sample records it as not compiled (so does the reference's failing to load or
  build; failing in a trial, it fails that sample as incorrect);
- correct: num_correct_trials = 5 (EvalConfig in eval_from_generations.py; the function's own
  default is 1) trials, their seeds torch.randint(0, 2**32 - 1, (1,)) drawn right after
  torch.manual_seed(42); per trial set_seed(trial seed), get_inputs(), Model then ModelNew on the
  same input tensors under no_grad, models left in training mode; a shape mismatch or an
  exception in ModelNew fails at once; else torch.allclose(output, output_new, atol=tol, rtol=tol)
  with tol = get_tolerance_for_precision(fp32) = 1e-4 (eval.py line 95; v0 and v0.1 used 1e-2,
  as keval's tasks still do); all trials must pass. One output tensor only: `.shape` of a tuple
  raises, and that is a failed trial.
Not reproduced, since none changes `correctness`: the timing after a pass, its excessive-speedup
flag (metadata only), CUDA_VISIBLE_DEVICES and the extension cache directories. The static checker
(kernel_static_checker.py) runs at generation and in run_and_check.py, not in eval_from_generations.
"""

import contextlib
import importlib.util
import os
import tempfile

SEED = 42
TRIALS = 5
# eval.py get_tolerance_for_precision (atol = rtol), after torchbench
TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


class NoResult(Exception):
    """eval_kernel_against_ref returned None (a 'lock' or 'No such file' compile error, which it
    asks to retry): eval_from_generations' run then aborts on `None.compiled`."""


def set_seed(seed: int) -> None:
    import torch

    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)  # queued, harmless without CUDA


def tolerance_for_precision(precision) -> float:
    return TOLERANCE[str(precision).replace("torch.", "")]


def process_input(value, device, precision):
    """eval.py _process_input_tensor: tensors cast to the precision (integers too), then moved."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    return value.to(dtype=precision).to(device=device)


def synchronize(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device=device)


def trial_seeds(seed: int = SEED, trials: int = TRIALS) -> list:
    import torch

    torch.manual_seed(seed)
    return [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(trials)]


def load_original(source: str):
    """(Model, get_init_inputs, get_inputs) from the problem's source exec'd into a fresh dict;
    None when it does not compile or run (KernelBench prints and returns None)."""
    context = {}
    try:
        compile(source, "<string>", "exec")
        exec(source, context)
    except Exception:  # noqa: BLE001 - KernelBench's own `except Exception`
        return None
    return context.get("Model"), context.get("get_init_inputs"), context.get("get_inputs")


def load_custom(source: str):
    """(ModelNew, temporary file path): the source imported from a NamedTemporaryFile as
    `temp_module` (not entered in sys.modules); AttributeError when it defines no ModelNew."""
    with tempfile.NamedTemporaryFile(mode="w", suffix=".py", delete=False) as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location("temp_module", f.name)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        return getattr(module, "ModelNew"), f.name
    except BaseException:
        os.unlink(f.name)
        raise


def outcome(compiled: bool, correct: bool, error: str = "", trials: str = "") -> dict:
    return {"compiled": compiled, "correctness": correct, "error": error, "trials": trials}


def error_text(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def check_correctness(model, model_new, get_inputs, device, precision, trials: int, seed: int) -> dict:
    """eval.py run_and_check_correctness (models already built and moved)."""
    import torch

    passed, mismatches = 0, []
    seeds = trial_seeds(seed, trials)
    with torch.no_grad():
        for trial, trial_seed in enumerate(seeds):
            set_seed(trial_seed)
            inputs = [process_input(x, device, precision) for x in get_inputs()]
            set_seed(trial_seed)
            model = model.to(device=device, dtype=precision)
            set_seed(trial_seed)
            model_new = model_new.to(device=device, dtype=precision)
            try:  # outside KernelBench's try: its error escapes to eval_kernel_against_ref, same outcome
                output = model(*inputs)
                synchronize(device)
            except Exception as e:  # noqa: BLE001
                return outcome(True, False, f"the reference Model failed in trial {trial}: {error_text(e)}")
            try:
                output_new = model_new(*inputs)
                synchronize(device)
                if output.shape != output_new.shape:
                    return outcome(True, False, f"Output shape mismatch: Expected {output.shape}, got "
                                                f"{output_new.shape} (trial {trial})")
                tolerance = tolerance_for_precision(precision)
                if not torch.allclose(output, output_new, atol=tolerance, rtol=tolerance):
                    max_diff = torch.max(torch.abs(output - output_new)).item()
                    mismatches.append(f"trial {trial}: max difference {max_diff:.6f}")
                else:
                    passed += 1
            except Exception as e:  # noqa: BLE001 - KernelBench's runtime_error
                return outcome(True, False, f"runtime error in trial {trial}: {error_text(e)}")
    count = f"({passed} / {trials})"
    if passed == trials:
        return outcome(True, True, "", count)
    return outcome(True, False, f"Output mismatch {count}: " + "; ".join(mismatches[:2]), count)


def eval_kernel_against_ref(original_src: str, custom_src: str, device, trials: int = TRIALS,
                            seed: int = SEED, precision=None) -> dict:
    """eval.py eval_kernel_against_ref's correctness part; exceptions it lets escape escape."""
    import torch

    precision = precision or torch.float32
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.set_device(device)
    loaded = load_original(original_src)
    if loaded is None:
        raise TypeError("cannot unpack non-iterable NoneType object (the problem's source did not load)")
    Model, get_init_inputs, get_inputs = loaded
    set_seed(seed)
    init_inputs = [process_input(x, device, precision) for x in get_init_inputs()]
    with torch.no_grad():
        set_seed(seed)
        original_model = Model(*init_inputs)
        assert hasattr(original_model, "forward")
    path = None
    try:
        ModelNew, path = load_custom(custom_src)
        synchronize(device)
    except Exception as e:  # noqa: BLE001 - compilation failure
        if "lock" in str(e) or "No such file or directory" in str(e):
            raise NoResult(error_text(e)) from e
        return outcome(False, False, f"compilation error: {error_text(e)}")
    try:
        try:
            with torch.no_grad():
                set_seed(seed)
                custom_model = ModelNew(*init_inputs)
                assert hasattr(custom_model, "forward")
                original_model = original_model.to(device=device, dtype=precision)
                custom_model = custom_model.to(device=device, dtype=precision)
                synchronize(device)
        except RuntimeError as e:
            return outcome(True, False, f"runtime error building ModelNew: {error_text(e)}")
        try:
            return check_correctness(original_model, custom_model, get_inputs, device, precision, trials, seed)
        except Exception as e:  # noqa: BLE001 - compiled, not correct
            return outcome(True, False, f"runtime error: {error_text(e)}")
    finally:
        with contextlib.suppress(OSError):  # graceful_eval_cleanup removes it too
            os.unlink(path)


def evaluate(original_src: str, custom_src: str, device, trials: int = TRIALS, seed: int = SEED) -> dict:
    """scripts/eval_from_generations.py evaluate_single_sample: what escapes is not compiled."""
    try:
        return eval_kernel_against_ref(original_src, custom_src, device, trials, seed)
    except NoResult as e:
        return outcome(False, False, f"no result, KernelBench's run would abort: {e}")
    except Exception as e:  # noqa: BLE001
        return outcome(False, False, f"{error_text(e)} (escaped eval_kernel_against_ref)")
