"""The warden timing its guest: the candidate as a contender of the interleaved loop
(guest_timing.py), or clocked by the warden itself, on the CPU (warden_timed_candidate.py) and
on CUDA (warden_gpu_clock.py, gpu_timed_guest.py)."""
