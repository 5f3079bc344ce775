"""After `make demo`: what each verdict of the demo means, and whether every verdict is the one
examples/expected_verdicts.json expects. Exits 1 when one differs.

usage: demo_check.py RESULTS.jsonl EXPECTED.json"""

import collections
import json
import sys

MEANING = {
    "pass": "correct on every case, dtype and seed; its own Triton kernels did the work",
    "bad_submission": "the line or file could not be used (invalid JSON, no code, unknown task)",
    "missing_entry": "the code defines neither the task's entry nor kernel_function",
    "compile_error": "a SyntaxError while loading, or Triton refused to compile a kernel",
    "runtime_error": "an exception while loading or calling (a bad launch, a bad index)",
    "crash": "the process died before reporting every result",
    "timeout": "it ran past its deadline and was killed",
    "wrong_shape": "an output's shape (or the number of outputs) differs from the reference's",
    "wrong_dtype": "an output's dtype differs from the reference's",
    "mismatch": "some element is outside the tolerance of the reference's value",
    "nan_mismatch": "NaN or Inf where the reference has a finite value",
    "nondeterministic": "two runs on the same inputs gave different outputs",
    "input_mutated": "the call changed its inputs (the task does not allow it)",
    "out_of_bounds": "it wrote outside an input's bounds",
    "no_kernel": "no Triton kernel of the submission ran: other code did the work",
    "library_fallback": "its own kernels did too little of the work (GPU)",
    "tampering": "it reached into keval's runner or replaced what measures it",
}


def main(results_path: str, expected_path: str) -> int:
    with open(results_path) as f:
        results = [json.loads(line) for line in f if line.strip()]
    with open(expected_path) as f:
        expected = json.load(f)
    counts = collections.Counter(r["verdict"] for r in results)
    print("\nWhat the demo's verdicts mean (docs/judging.md has the full rules):")
    for verdict, n in sorted(counts.items(), key=lambda item: (item[0] != "pass", item[0])):
        print(f"  {verdict:<16} {n:>2}  {MEANING.get(verdict, '')}")
    got = {r["id"]: r["verdict"] for r in results}
    wrong = [f"{i}: {got.get(i, 'missing')} (expected {v})" for i, v in expected.items() if got.get(i) != v]
    if wrong:
        print(f"{len(wrong)} verdict(s) differ from {expected_path}:\n  " + "\n  ".join(wrong))
        return 1
    print(f"All {len(expected)} verdicts match {expected_path}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
