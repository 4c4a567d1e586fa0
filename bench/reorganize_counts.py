#!/usr/bin/env python3
"""How many proposals of each kind `reorganize` makes on the fixture vault and on the dendron vault,
with a fixed sample of each kind (seeded) to check by hand.

    python3 bench/reorganize_counts.py [--sample 3] [--write]
"""
from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    from bench_dupes import dendron_vault
    from memory_plugin import index as I
    from memory_plugin import reorganize as R
    from memory_plugin.config import load_config

    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="update the reorganize section of bench/RESULTS.md")
    a = ap.parse_args()
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, src in (("fixtures/vault", ROOT / "fixtures" / "vault"),
                          ("../shared/eval/dendron/vault", dendron_vault())):
            work = Path(tmp) / name.replace("/", "_")
            shutil.copytree(src, work / "vault")
            cfg = load_config(vault=work / "vault", cache_dir=work / "cache")
            I.rebuild(cfg)
            conn = sqlite3.connect(work / "cache" / "index.sqlite")
            props = R.proposals(cfg, conn)
            n = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
            conn.close()
            counts = Counter(p["kind"] for p in props)
            lines += [f"### {name} ({n} notes)", "", "| kind | proposals | appliable |", "|---|---|---|"]
            for kind in R.KIND_TITLES:
                lines.append(f"| {kind} | {counts.get(kind, 0)} | "
                             f"{sum(1 for p in props if p['kind'] == kind and p['action'])} |")
            lines += ["", "Sample (seeded):", ""]
            rng = random.Random(12)
            for kind in R.KIND_TITLES:
                group = [p for p in props if p["kind"] == kind]
                for p in sorted(rng.sample(group, min(a.sample, len(group))), key=lambda p: p["id"]):
                    why = f" [{'; '.join(r[:90] for r in p['reasons'])}]" if p.get("reasons") else ""
                    act = f" → {p['action']['path']}" if p.get("action") and p["action"].get("path") else ""
                    lines.append(f"- {kind}: {p['title'][:160]}{why}{act}")
            lines.append("")
    text = "\n".join(lines)
    print(text)
    if a.write:
        from common import machine, write_section

        write_section("reorganize", "## Reorganize proposals (issue 12)\n\n"
                                    f"Machine: {machine()}\n\nCommand: `.venv/bin/python bench/reorganize_counts.py "
                                    f"--write`\n\n{text}")


if __name__ == "__main__":
    main()
