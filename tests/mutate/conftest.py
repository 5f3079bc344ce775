"""keval mutate's tests: the operators on small Triton sources (no Triton needed), and the real
binary over a task or two on the CPU (Triton's interpreter)."""
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "runner"))  # keval_mutate, never installed
