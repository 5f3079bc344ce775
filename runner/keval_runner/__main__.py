"""Entry point: `python -m keval_runner` starts the zygote (see zygote.py)."""

import sys

from .zygote import main

if __name__ == "__main__":
    sys.exit(main())
