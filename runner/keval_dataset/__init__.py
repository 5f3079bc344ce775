"""keval's latency dataset: export in the makora triton-gpu-latency form, import of makora rows,
the tuning-space sweep's variants, and the baseline code->latency predictor (docs/dataset.md).

Kept apart from keval_runner: nothing here runs in a judged job.
"""
