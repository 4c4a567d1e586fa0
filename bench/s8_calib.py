"""Session 8 (s8-calib): the vault's cosine calibration from another pseudo-question source.

    python bench/s8_calib.py SOURCE VAULT CACHE_DIR

Sets semantic.CALIBRATION_SOURCE to SOURCE (titles | summary | middle | robust) and runs the product's
embed pass on CACHE_DIR (a COPY of a seed cache: it is written): nothing is pending, so only
`_needs_calibration` -> `calibrate` runs, storing that source's calibration in the index meta. Then
`memory-plugin --vault VAULT --cache-dir CACHE_DIR eval QUESTIONS --json` reads it. See
bench/eval/PROTOCOL.md, session 8 s8-calib.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_plugin import semantic  # noqa: E402
from memory_plugin.config import load_config  # noqa: E402
from memory_plugin.index import open_index  # noqa: E402


def main(argv: list[str]) -> int:
    source, vault, cache = argv
    if source not in semantic.CALIBRATION_SOURCES:
        raise SystemExit(f"source must be one of {semantic.CALIBRATION_SOURCES}")
    semantic.CALIBRATION_SOURCE = source
    cfg = load_config(vault=vault, cache_dir=cache)
    stats = semantic.embed_pending(cfg)
    conn = open_index(cfg)
    try:
        cal = json.loads(semantic._get_meta(conn, "cosine_calibration") or "null")
    finally:
        conn.close()
    print(json.dumps({"embed": stats, "calibration": cal}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
