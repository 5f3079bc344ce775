"""Entry point: `python -m keval_runner` starts a zygote (zygote.py); with `--seed`, the seed
that forks a run's zygotes (seed.py)."""

import os
import sys

if __name__ == "__main__":
    if sys.argv[1:] == ["--seed"]:
        from .seed import main
        code = main()
        # The seed holds nothing to clean up, and tearing down the interpreter with torch and
        # Triton loaded took 1.5 s, which the controller waited out at the end of every run.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    from .zygote import main
    sys.exit(main())
