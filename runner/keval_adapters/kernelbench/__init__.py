"""KernelBench (github.com/ScalingIntelligence/KernelBench) as keval tasks.

    python -m keval_adapters kernelbench suite --source CHECKOUT --out DIR [--select 1,2]
    python -m keval_adapters kernelbench submissions --source PATH --out OUT.jsonl [--suite CHECKOUT]
    python -m keval_adapters kernelbench selfcheck --source CHECKOUT [--select 1] [--device cpu]
    python -m keval_adapters kernelbench compare-judges --results RESULTS.jsonl --source PATH --out REPORT.json

A task is one problem file `KernelBench/level{N}/{id}_{Name}.py` (`class Model`,
`get_inputs()`, `get_init_inputs()`). A submission defines `class ModelNew` (KernelBench's own
contract); the glue appended to it (`submission_suffix.py`) defines the entry
`kernelbench_forward(*inputs)`: builds Model and ModelNew under the same seed, copies Model's
weights into ModelNew by name, calls ModelNew. docs/peers.md has the whole mapping.

adapter.py (the verbs), problems.py (the checkout), sizing.py (cases and CPU-sized variants),
tasks.py (the task folders), submissions.py (matching), runtime.py (the glue in job children),
judges.py with criterion.py (compare-judges: KernelBench's own rule).
"""
