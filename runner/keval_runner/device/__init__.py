"""The GPU and its driver: the device gate the slots share it by, memory two processes map,
host words its streams wait on, how full it is, and the job's peak memory."""
