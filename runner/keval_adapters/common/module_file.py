"""Loading a generated task file as a module, in this process."""

import importlib.util
import sys


def load_module(path: str, name: str, text: str = None):
    """`path` (or `text` under its name) executed as module `name`, entered in sys.modules."""
    spec = importlib.util.spec_from_loader(name, loader=None, origin=path)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = path
    sys.modules[name] = module
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    exec(compile(text, path, "exec"), module.__dict__)
    return module
