"""Task names from a peer's titles."""

import re


def snake(text: str) -> str:
    """`Matmul_with_diagonal_matrices_` -> `matmul_with_diagonal_matrices`."""
    return re.sub(r"_+", "_", re.sub(r"[^a-z0-9]+", "_", text.lower())).strip("_")
