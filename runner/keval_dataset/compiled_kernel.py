"""One dry launch (dry_launch.py) compiled by Triton for an H200 (sm_90) on a machine without a
GPU: what ptxas says of it (registers, spills, shared memory) and counts in its TTGIR and PTX.

The signature comes from the launch's argument dtypes and constexprs, so the kernel compiled is
the one the GPU would have compiled for that case (up to Triton's divisibility-by-16
specialisation of integer and pointer arguments, which is not known without the data: none is
assumed, so a few vectorised loads may compile as narrower ones).
"""

import contextlib
import io
import re

TARGET = ("cuda", 90, 32)
POINTER_TYPES = {"float64": "*fp64", "float32": "*fp32", "float16": "*fp16", "bfloat16": "*bf16",
                 "int64": "*i64", "int32": "*i32", "int16": "*i16", "int8": "*i8", "uint8": "*u8", "bool": "*i1",
                 "float8_e4m3fn": "*fp8e4nv", "float8_e5m2": "*fp8e5"}
SCALAR_TYPES = {"i32": "i32", "fp32": "fp32", "i1": "i1", "int": "i32", "float": "fp32", "NoneType": "constexpr"}
PTXAS_RE = {
    "registers": re.compile(r"Used (\d+) registers"),
    "spill_stores": re.compile(r"(\d+) bytes spill stores"),
    "spill_loads": re.compile(r"(\d+) bytes spill loads"),
    "stack": re.compile(r"(\d+) bytes stack frame"),
}
TTGIR_COUNTS = {
    "ttgir_loads": r"\btt\.load\b", "ttgir_stores": r"\btt\.store\b",
    "ttgir_dots": r"\b(tt\.dot|ttng\.warp_group_dot)\b", "ttgir_async_copies": r"\bttg\.async_copy_global_to_local\b",
    "ttgir_local_allocs": r"\bttg\.local_alloc\b", "ttgir_layout_converts": r"\bttg\.convert_layout\b",
    "ttgir_reduces": r"\btt\.reduce\b", "ttgir_loops": r"\bscf\.for\b", "ttgir_ops": r"^\s*(%\S+ = )?[a-z_]+\.[a-z_.]+",
}
PTX_COUNTS = {"ptx_instructions": r"^\s+[a-z][a-z0-9_.]*\s", "ptx_global_loads": r"\bld\.global",
              "ptx_vector_loads": r"\bld\.global[.a-z0-9]*\.v[248]\.", "ptx_shared": r"\b(ld|st)\.shared",
              "ptx_mma": r"\b(mma|wgmma)\.", "ptx_bar": r"\bbar\.sync\b"}


def signature(fn, launch: dict):
    """Triton's (signature, constexprs) for the JITFunction `fn` launched as `launch`."""
    sig, constants = {}, {}
    dtypes = iter(launch["arg_dtypes"])
    for param in fn.params:
        if param.is_constexpr:
            sig[param.name] = "constexpr"
            constants[(param.num,)] = launch["constexprs"].get(param.name)
            continue
        dtype = next(dtypes)
        kind = POINTER_TYPES.get(dtype) or SCALAR_TYPES.get(dtype)
        if kind is None:
            raise ValueError(f"argument {param.name}: no Triton type for {dtype}")
        sig[param.name] = kind
        if kind == "constexpr":
            constants[(param.num,)] = None
    return sig, constants


def compile_launch(fn, launch: dict) -> dict:
    """Features of the compiled kernel; raises when Triton cannot compile it."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton import knobs

    sig, constants = signature(fn, launch)
    log = io.StringIO()
    with knobs.nvidia.scope(), knobs.compilation.scope():
        knobs.nvidia.dump_ptxas_log = True
        knobs.compilation.always_compile = True  # a cached kernel would skip ptxas and its report
        with contextlib.redirect_stdout(log):  # ptxas -v's report, printed by Triton
            kernel = triton.compile(ASTSource(fn, sig, constants), target=GPUTarget(*TARGET),
                                    options={"num_warps": launch["num_warps"], "num_stages": launch["num_stages"]})
    return features(log.getvalue(), kernel.asm.get("ttgir", ""), kernel.asm.get("ptx", ""), kernel.metadata.shared)


def features(ptxas_log: str, ttgir: str, ptx: str, shared: int) -> dict:
    out = {}
    for name, regex in PTXAS_RE.items():
        found = regex.findall(ptxas_log)
        out[name] = float(max((int(v) for v in found), default=0))
    out["shared_bytes"] = float(shared or 0)
    for name, pattern in TTGIR_COUNTS.items():
        out[name] = float(len(re.findall(pattern, ttgir, re.M)))
    for name, pattern in PTX_COUNTS.items():
        out[name] = float(len(re.findall(pattern, ptx, re.M)))
    return out
