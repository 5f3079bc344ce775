"""KernelBenchX (github.com/BonnieW05/KernelBenchX) as keval tasks.

    python -m keval_adapters kernelbenchx suite --source CHECKOUT --out DIR [--select Activation,Math]
    python -m keval_adapters kernelbenchx submissions --source PATH --out OUT.jsonl [--suite CHECKOUT]
    python -m keval_adapters kernelbenchx selfcheck --source CHECKOUT [--device cpu]
    python -m keval_adapters kernelbenchx compare-judges --results RESULTS.jsonl --source FILE.jsonl --out REPORT.json
    python -m keval_adapters kernelbenchx published-times --suite CHECKOUT --results RESULTS.jsonl [--gpu h800]

A task is one entry of `data/kernelbenchx_v1.json` (its `file`, `Category/<stem>.py`): above the
146-`#` separator the reference implementation, below it the test that fills `test_results`;
`metrics/golden_metrics/<stem>_perf.py` gives the benchmark inputs. Case `tests` (small) runs the
test; cases `perf_<i>` (GPU) call the template's `call_op` on its i-th input. docs/peers.md has
the whole mapping.

adapter.py (the verbs), checkout.py (the task list), tasks.py (the task folders), submissions.py
(matching), runtime.py (the glue in job children), judges.py with criterion.py (compare-judges:
KernelBenchX's own rule), published.py (its published golden times beside keval's).
"""
