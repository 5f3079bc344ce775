"""Third-party code kept inside the runner, so that it runs where only torch and triton are
installed (a GPU machine without a package registry). Each module keeps its upstream licence
beside it; docs/peers.md lists what is here and why."""
