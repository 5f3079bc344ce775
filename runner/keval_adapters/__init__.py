"""Peer benchmark adapters (TritonBench-G/T, KernelBench, KernelBenchX); see docs/peers.md."""
