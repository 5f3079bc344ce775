"""What every peer adapter shares, written once: the Adapter protocol, the command line, the
task.toml writer, atomic suite folders, the peer task file's separator, finding a checkout
above a submissions file, reading submission files and writing native JSONL, the runtime
loader, selfcheck and the compare-judges plumbing."""
