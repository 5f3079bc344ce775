"""A peer's runtime file (the glue that runs in job children) copied into every task folder and
loaded from there by path, so a sandboxed uid needs nothing outside the task folder."""


def runtime_text(module_file: str) -> str:
    with open(module_file, encoding="utf-8") as f:
        return f.read()


def loader_snippet(prefix: str) -> str:
    """Python text defining `{prefix}load(path)`: loads a runtime file copied into a task folder
    as a module named after its content, once per process (the suffix, golden.py and
    reference.py of one task then share it). Names start with `prefix`: in a submission they
    land in its own module."""
    return f'''
def {prefix}load(path):
    import hashlib, importlib.util, sys
    with open(path, "rb") as f:
        name = "{prefix}runtime_" + hashlib.sha256(f.read()).hexdigest()[:16]
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)
            raise
    return module
'''
