"""The guest, the only process that runs the submission (guest.py), and the warden's handle on
it: its start, channel and stop; the baselines' own process (baseline_guest.py)."""
