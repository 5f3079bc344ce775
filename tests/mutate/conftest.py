"""keval mutate's tests: the operators on small Triton sources (no Triton needed), and the real
binary over a task or two on the CPU (Triton's interpreter)."""
import os
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "runner"))  # keval_mutate, never installed
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
FIXTURE_SUITE = REPO / "tests" / "mutate" / "fixtures" / "suite"  # tasks made for these tests


def keval_env(**more) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}  # keval decides the mode itself
    return {**env, **more}
