"""Triton's CPU interpreter made usable (autotune, bfloat16) and checked (bounds)."""
