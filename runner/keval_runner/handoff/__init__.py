"""A call's arguments and outputs handed between processes: warden to guest in shared memory,
guest to warden in sealed memfds or read from its stopped memory, candidate job to reference
job in files."""
