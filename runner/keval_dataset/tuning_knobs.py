"""The tuning constants a Triton program names: block sizes and the like, warps, stages."""

import re

KNOB_RE = re.compile(r"\b([A-Za-z_]*(?:BLOCK|TILE|GROUP|SPLIT|CHUNK)[A-Za-z_0-9]*)\s*[=:]\s*['\"]?\s*(\d+)", re.I)
WARPS_RE = re.compile(r"num_warps\s*[=:]\s*(\d+)")
STAGES_RE = re.compile(r"num_stages\s*[=:]\s*(\d+)")
