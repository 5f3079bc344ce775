"""Entry point: `python -m keval_runner` starts a zygote (zygote.py); with `--seed`, the seed
that forks a run's zygotes (seed.py)."""

import sys

if __name__ == "__main__":
    if sys.argv[1:] == ["--seed"]:
        from .seed import main
    else:
        from .zygote import main
    sys.exit(main())
