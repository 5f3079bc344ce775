"""Timing samples: the stopping rule, the interleaved loop and its statistics, what keeps a
sample honest (SM clock, persisting L2, launch cover, CPU pinning), and input rotation."""
