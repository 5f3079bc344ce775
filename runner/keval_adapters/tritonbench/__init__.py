"""TritonBench-G and TritonBench-T (github.com/thunlp/TritonBench) as keval tasks.

    python -m keval_adapters tritonbench-g suite --source CHECKOUT --out DIR [--select any-code]
    python -m keval_adapters tritonbench-g submissions --source FILE.jsonl --out OUT.jsonl [--suite CHECKOUT]
    python -m keval_adapters tritonbench-g compare-judges --results RESULTS.jsonl --source FILE.jsonl --out REPORT.json
    python -m keval_adapters tritonbench-g preprocessing-check --source CHECKOUT [--out REPORT.json]

A task is one file of `data/TritonBench_{G,T}_v1/`: above the 146-`#` separator the reference
(Triton for G, PyTorch for T), below it the test, whose test function returns a dict of
results. keval runs the reference's test and the submission's test in separate processes under
the same seed and compares the returned values tensor by tensor (docs/peers.md has the mapping).

adapter.py (the verbs), checkout.py (task files, dataset and instructions), test_part.py (the
test made safe to run), perf.py (performance cases), tasks.py and templates.py (the task
folders), submissions.py (matching), runtime.py (the glue embedded in generated files),
judges.py with criterion.py (compare-judges: TritonBench's own rule), preprocessing.py (the gold
files TritonBench's own G pre-processing breaks), source_edit.py.
"""
