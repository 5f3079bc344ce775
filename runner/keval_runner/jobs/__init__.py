"""The jobs of a job child, a module each (candidate, reference, timing, sweep, probe,
ceilings), and the child itself: it isolates itself and runs one of them (child.py)."""
