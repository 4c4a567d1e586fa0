"""Engine benchmarks (issue 2): rebuild, sync with nothing changed, reindex of one note, at 1k/10k/50k,
as whole processes, medians of >= 5 runs; obsidiantools 0.11.0 on the same 1k and 10k vaults.

    .venv/bin/python bench/bench_engine.py [--sizes 1000,10000,50000] [--runs 5] [--write]
"""
from __future__ import annotations

import argparse
import shutil
import sys

from common import EXE, OUT, machine, median, publish, timed, vault


def bench_size(n: int, runs: int) -> dict:
    v = vault(n)
    cache = OUT / f"cache-{n}"
    env = {"MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    shutil.rmtree(cache, ignore_errors=True)
    rb = [timed([EXE, "rebuild"], env=env) for _ in range(runs)]
    sy = [timed([EXE, "sync"], env=env) for _ in range(runs)]
    notes = sorted(p for p in v.rglob("*.md") if ".groundtruth" not in p.parts)
    target = notes[len(notes) // 2]
    original = target.read_bytes()
    ri = []
    try:
        for i in range(runs):
            target.write_bytes(original + f"\nedit {i} [[Bench link {i}]]\n".encode())
            ri.append(timed([EXE, "reindex", str(target)], env=env))
    finally:
        target.write_bytes(original)
        timed([EXE, "reindex", str(target)], env=env)
    out = {"n": n, "rebuild": median([w for w, _ in rb]), "rebuild_rss": max(r for _, r in rb),
           "sync": median([w for w, _ in sy]), "reindex": median([w for w, _ in ri])}
    if n <= 10_000:
        code = "from obsidiantools.api import Vault; Vault(__import__('pathlib').Path(%r)).connect().gather()" % str(v)
        try:
            ot = [timed([sys.executable, "-c", code]) for _ in range(runs)]
            out["ot"] = median([w for w, _ in ot])
            out["ot_rss"] = max(r for _, r in ot)
        except RuntimeError as e:
            out["ot_error"] = str(e).splitlines()[-1][:120]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    a = ap.parse_args()
    base = [timed([sys.executable, "-c", "pass"])[0] for _ in range(a.runs)]
    rows = [bench_size(int(s), a.runs) for s in a.sizes.split(",")]
    lines = ["## Engine (issue 2)", "", f"Machine: {machine()}", "",
             f"Command: `.venv/bin/python bench/bench_engine.py --sizes {a.sizes} --runs {a.runs} --write` "
             f"(whole processes, median of {a.runs} runs; peak RSS is the largest of the runs; "
             f"`python -c pass` baseline {median(base) * 1000:.0f} ms).", "",
             "| notes | rebuild | rebuild peak RSS | sync, nothing changed | reindex one note | obsidiantools 0.11.0 connect().gather() | ratio obsidiantools / rebuild |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ot = f"{r['ot']:.2f} s ({r['ot_rss']:.0f} MB)" if "ot" in r else (r.get("ot_error") or "not run (too slow at this size)")
        ratio = f"{r['ot'] / r['rebuild']:.1f}×" if "ot" in r else "-"
        lines.append(f"| {r['n']:,} | {r['rebuild']:.2f} s | {r['rebuild_rss']:.0f} MB | {r['sync'] * 1000:.0f} ms | "
                     f"{r['reindex'] * 1000:.0f} ms | {ot} | {ratio} |")
    small, big = rows[0], rows[-1]
    lines += ["", f"reindex {big['n']:,}/{small['n']:,} ratio: {big['reindex'] / small['reindex']:.2f} (budget ≤ 1.5). "
              "Budgets: rebuild 10k ≤ 10 s and ≤ 500 MB, 50k ≤ 60 s; sync 10k ≤ 1 s; reindex 10k ≤ 150 ms."]
    publish("engine", lines, a.write)


if __name__ == "__main__":
    main()
