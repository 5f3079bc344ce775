"""Exact and near duplicates among a dataset's programs (docs/dataset.md, "Quality").

A program's text is normalised to Python tokens without comments, docstrings' content or layout:
every string is STR. *Exact* duplicates share the normalised tokens, numbers included (the same
program with other comments or spacing). *Near* copies are compared with numbers as NUM too, so
the tuning variants of one program are one text; two texts are near copies when the Jaccard
similarity of their 5-token shingles is at least the threshold. MinHash with an LSH index
(datasketch) finds the candidate pairs, at a lower threshold so that pairs near the threshold
are not lost to the estimate's noise, so that a large export is not compared pair by pair; each
candidate's similarity is then computed exactly.
"""

import hashlib
import importlib.util
import io
import re
import tokenize

SHINGLE = 5
PERMUTATIONS = 128
CANDIDATE_MARGIN = 0.2  # LSH looks this far below the threshold; exact Jaccard decides
DEFAULT_THRESHOLD = 0.7  # v1 (exact Jaccard): bmm~matmul 0.78, mse_loss~smooth_l1_loss 0.76; next 0.68
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
         tokenize.ENCODING, tokenize.ENDMARKER}


def tokens(code: str, numbers: bool) -> list:
    """The code's tokens without comments and layout; strings as STR, numbers as NUM unless
    `numbers`. Text that does not tokenize falls back to words and symbols."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type in _SKIP:
                continue
            if tok.type == tokenize.STRING or tok.type in getattr(tokenize, "FSTRING_TYPES", ()):
                out.append("STR")
            elif tok.type == tokenize.NUMBER and not numbers:
                out.append("NUM")
            else:
                out.append(tok.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        out = re.findall(r"[A-Za-z_]\w*|\d[\w.]*|\S", re.sub(r"#[^\n]*", "", code))
        if not numbers:
            out = ["NUM" if t[0].isdigit() else t for t in out]
    return out


def exact_key(code: str) -> str:
    """Equal for programs that differ only in comments and layout."""
    return hashlib.sha256("\x1f".join(tokens(code, numbers=True)).encode()).hexdigest()


def shape_key(code: str) -> str:
    """Equal for programs that differ only in their numbers (tuning variants of one program)."""
    return hashlib.sha256("\x1f".join(tokens(code, numbers=False)).encode()).hexdigest()


def shingles(code: str) -> set:
    toks = tokens(code, numbers=False)
    if len(toks) < SHINGLE:
        return {" ".join(toks)}
    return {" ".join(toks[i:i + SHINGLE]) for i in range(len(toks) - SHINGLE + 1)}


def minhash(code: str):
    from datasketch import MinHash

    m = MinHash(num_perm=PERMUTATIONS, seed=1)
    m.update_batch([s.encode() for s in shingles(code)])
    return m


def near_pairs(texts: dict, threshold: float = DEFAULT_THRESHOLD) -> list:
    """texts: key -> code (one per distinct shape_key is enough). Returns (key_a, key_b, similarity)
    for every pair whose Jaccard similarity is at least `threshold`, sorted."""
    sets = {key: shingles(code) for key, code in texts.items()}
    if importlib.util.find_spec("datasketch") is None:  # an offline machine: every pair, exactly
        keys = sorted(sets)
        return sorted((a, b, round(len(sets[a] & sets[b]) / len(sets[a] | sets[b]), 4))
                      for i, a in enumerate(keys) for b in keys[i + 1:]
                      if len(sets[a] & sets[b]) >= threshold * len(sets[a] | sets[b]))
    from datasketch import MinHashLSH

    hashes = {key: minhash(code) for key, code in texts.items()}
    lsh = MinHashLSH(threshold=max(0.3, threshold - CANDIDATE_MARGIN), num_perm=PERMUTATIONS)
    for key, m in hashes.items():
        lsh.insert(key, m)
    pairs = set()
    for key, m in hashes.items():
        for other in lsh.query(m):
            if other == key:
                continue
            a, b = sorted((key, other))
            similarity = len(sets[a] & sets[b]) / len(sets[a] | sets[b])
            if similarity >= threshold:
                pairs.add((a, b, round(similarity, 4)))
    return sorted(pairs)
