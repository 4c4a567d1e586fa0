#!/usr/bin/env python3
"""Session 7: the dev figures of every variant fusion_sweep.py measured, from its per-set JSON files,
against main (H0.L0) by the criteria of bench/eval/PROTOCOL.md (session 7).

    python3 bench/fusion_summary.py [DIR]   (default $MEMORY_PLUGIN_BENCH_DIR/sweep-out)
"""
import json
import os
import sys
from pathlib import Path

DEV = ("til", "silverbullet", "logseq", "interlock-kb", "quartz-docs", "mdbook-guide", "dataview-docs")
d = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(os.environ.get("MEMORY_PLUGIN_BENCH_DIR", "/work/bench-fusion")) / "sweep-out"
variants = sorted({p.name.split(".", 1)[1][:-5] for p in d.glob("*.json") if p.name != "table.json"})


def load(s, v):
    p = d / f"{s}.{v}.json"
    return json.loads(p.read_text())["summary"]["overall"] if p.exists() else None


base = {s: load(s, "H0.L0") for s in DEV + ("fixture",)}
print("| variant | " + " | ".join(DEV) + " | dev mean R@5 / MRR | (R@5+MRR)/2 | worst set ΔR@5 / ΔMRR | fixture R@5 / MRR / none |")
print("|---|" + "---|" * (len(DEV) + 4))
for v in variants:
    rows = {s: load(s, v) for s in DEV}
    if any(r is None for r in rows.values()):
        continue
    fx = load("fixture", v)
    for mode, key in (("hybrid", "query"), ("lexical", "lexical")):
        r5 = sum(rows[s][key]["r5"] for s in DEV) / len(DEV)
        mrr = sum(rows[s][key]["mrr"] for s in DEV) / len(DEV)
        dr5 = min(rows[s][key]["r5"] - base[s][key]["r5"] for s in DEV)
        dmrr = min(rows[s][key]["mrr"] - base[s][key]["mrr"] for s in DEV)
        cells = " | ".join(f"{rows[s][key]['r5']:.3f} / {rows[s][key]['mrr']:.3f}" for s in DEV)
        f = f"{fx[key]['r5']:.3f} / {fx[key]['mrr']:.3f} / {fx[key].get('none', 0):.2f}" if fx else "–"
        extra = ""
        if mode == "lexical":
            extra = f" (worst lex-BM25 R@5 {min(rows[s]['lexical']['r5'] - rows[s]['baseline']['r5'] for s in DEV):+.3f})"
        print(f"| {v} {mode} | {cells} | {r5:.4f} / {mrr:.4f} | {(r5 + mrr) / 2:.4f} | {dr5:+.3f} / {dmrr:+.3f}{extra} | {f} |")
bm = " | ".join(f"{base[s]['baseline']['r5']:.3f} / {base[s]['baseline']['mrr']:.3f}" for s in DEV if base[s])
sem = " | ".join(f"{base[s]['semantic']['r5']:.3f} / {base[s]['semantic']['mrr']:.3f}" for s in DEV if base[s])
print(f"| BM25 | {bm} |")
print(f"| semantic | {sem} |")
