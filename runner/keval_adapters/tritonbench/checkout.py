"""A TritonBench checkout: the task files of one kind (G or T) in `data/TritonBench_{G,T}_v1/`,
the dataset JSON and alpaca instruction files that describe them."""

import json
import os
import re

from ..common.errors import AdapterError

G_PREFIX = ("You are a expert in writing Triton operators for efficient GPU programming. Use triton "
            "language write a kernel and wrapper according following instruction.")
T_PREFIX = ("You are an expert in Trion programming, capable of writing corresponding Triton kernels "
            "and wrapper functions based on functional descriptions and function parameters. Ensure "
            "that the wrapper function fully corresponds to the provided function information.")
T_SUFFIX = "After generation, verify if the Triton wrapper aligns with the provided func_inputs. If not, regenerate."

CATEGORIES = [  # first match on the file stem wins; a heuristic for report grouping only
    ("attention", r"attn|attention|flash|decode|retention|gla|lightning|rwkv|hgrn|delta|ssm|recurren"),
    ("quantization", r"quant|int8|int4|fp8|fp4|f8_|bf16"),
    ("matmul", r"matmul|gemm|gemv|bmm|mm_|_mm|^mm|linear|vecmat|matrix_vector|conv|lora|bgmv|sgmv|dot|addmv|mv$|einsum|tensordot"),
    ("normalization", r"norm"),
    ("softmax", r"softmax|logsumexp"),
    ("loss", r"entropy|loss|kldiv|_ce_|nll"),
    ("rope", r"rope|rotary|rbe|embedding"),
    ("scan", r"cumsum|cumprod|scan"),
    ("reduction", r"reduc|sum|mean|max|min|argmax|argmin|std|var|prod|topk|sort"),
    ("memory", r"copy|cache|transpose|index|select|gather|scatter|cat|fill|kv_"),
    ("random", r"dropout|sampling|multinomial|uniform|rand"),
    ("optimizer", r"adam|sgd|optim"),
]

MISSING_CHECKOUT = "no TritonBench checkout above it; give --suite tritonbench-g:CHECKOUT"


class Checkout:
    """The files of one kind (G or T) in a TritonBench checkout."""

    def __init__(self, root: str, kind: str):
        self.root = os.path.abspath(root)
        self.kind = kind  # "G" or "T"
        self.data_dir = os.path.join(self.root, "data", f"TritonBench_{kind}_v1")
        if not os.path.isdir(self.data_dir):
            raise AdapterError(f"{self.root}: not a TritonBench checkout (no data/TritonBench_{kind}_v1/)")
        self.entries = self._dataset()  # file name -> dataset entry
        self.alpaca = {v: self._alpaca(v) for v in ("simp", "comp")}  # file name -> instruction
        self.perf_dir = os.path.join(self.root, "performance_metrics", f"perf_{kind}", "golden_metrics")

    def _load_json(self, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            return json.loads(text)
        except json.JSONDecodeError:  # JSON lines
            return [json.loads(line) for line in text.splitlines() if line.strip()]

    def _dataset(self) -> dict:
        for name in (f"TritonBench_{self.kind}_v1.json", f"TritonBench_{self.kind}_v1.jsonl"):
            path = os.path.join(self.root, "data", name)
            if os.path.exists(path):
                items = self._load_json(path)
                return {item["file"]: item for item in items if isinstance(item, dict) and "file" in item}
        return {}

    def _alpaca(self, variant: str) -> dict:
        """The alpaca instruction file's entries, aligned with the dataset JSON by position
        (TritonBench writes both in one order); kept only where the entry's own text confirms it."""
        path = os.path.join(self.root, "data", f"TritonBench_{self.kind}_{variant}_alpac_v1.json")
        if not os.path.exists(path) or not self.entries:
            return {}
        items = self._load_json(path)
        out = {}
        for item, (file, entry) in zip(items, self.entries.items()):
            instruction = item.get("instruction", "") if isinstance(item, dict) else ""
            key = (entry.get(f"{variant}_instru") if self.kind == "G" else entry.get("description")) or ""
            if key and normalise(key) in normalise(instruction):
                out[file] = instruction
        return out

    def files(self) -> list:
        return sorted(f for f in os.listdir(self.data_dir) if f.endswith(".py"))

    def instructions(self, file: str) -> list:
        """Every text TritonBench gave a model for this task (for exact matching)."""
        entry = self.entries.get(file, {})
        texts = [self.alpaca[v][file] for v in ("comp", "simp") if file in self.alpaca[v]]
        if self.kind == "G":
            texts += [f"{G_PREFIX}\n{entry[k]}" for k in ("comp_instru", "simp_instru") if entry.get(k)]
        else:
            texts += [t_instruction(entry, full) for full in (True, False) if entry.get("description")]
        return texts

    def instruction(self, file: str) -> str:
        texts = self.instructions(file)
        return texts[0] if texts else ""


def t_instruction(entry: dict, full: bool) -> str:
    parts = [T_PREFIX, f"Functional Description: {entry.get('description', '')}",
             f"Wrapper Entry Information: {entry.get('func_inputs', '')}"]
    if full:
        if entry.get("math"):
            parts.append(f"Math: {entry['math']}")
        if entry.get("other"):
            parts.append(f"other: {entry['other']}")
    parts.append(T_SUFFIX)
    return "\n".join(parts)


def normalise(text: str) -> str:
    return " ".join(str(text).split())


def task_name(file: str) -> str:
    stem = file[:-3] if file.endswith(".py") else file
    name = re.sub(r"[^A-Za-z0-9_]", "_", stem)
    return name if name and not name[0].isdigit() else "t_" + name


def category_of(stem: str) -> str:
    for name, pattern in CATEGORIES:
        if re.search(pattern, stem.lower()):
            return name
    return "elementwise"


def is_checkout(folder: str) -> bool:
    return os.path.isdir(os.path.join(folder, "data")) and any(
        os.path.isdir(os.path.join(folder, "data", f"TritonBench_{k}_v1")) for k in "GT")
