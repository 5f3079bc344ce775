"""A task's files loaded, its inputs drawn (make_inputs), drawn once per slot on the CPU, and
the baselines loaded."""
