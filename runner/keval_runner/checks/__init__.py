"""What a call is checked for besides its values: guard bands, poisoning, tampering (the watch
and the runner's snapshot), and which kernels ran and whose they are."""
