"""How many bytes of outputs the warden reads from one reply of its guest.

A call's outputs come back in sealed memfds (no payload); only a guest that cannot seal them
(over its file-size limit) sends them as payload bytes, which the warden must hold in memory.
The guest names the length, so the warden bounds it before reading, per call, from what the
job's request makes of that call: the inputs it drew, times a factor that covers every task of
the suites (outputs the size of the inputs, a few times over), and never below a floor that
small inputs with larger outputs fit in (an outer product of two 4096-vectors is 64 MiB).
Every other reply carries no outputs and gets the channel's default (guest_channel.py).
"""

OUTPUT_BYTES_FLOOR = 256 << 20
OUTPUT_BYTES_PER_INPUT_BYTE = 16


def output_payload_limit(input_bytes: int) -> int:
    """The most payload bytes the reply to a call on input_bytes of inputs may carry."""
    return max(OUTPUT_BYTES_FLOOR, OUTPUT_BYTES_PER_INPUT_BYTE * int(input_bytes))
