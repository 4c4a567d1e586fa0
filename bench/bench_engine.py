"""Engine benchmarks (issues 2 and 14): rebuild, sync with nothing changed, reindex of one note, at
1k/10k/50k/100k generated notes, as whole processes, medians; the load average is recorded with each
row because the machine is shared. obsidiantools on the same vaults with --peers (bench/compare.py
has the full side-by-side).

    .venv/bin/python bench/bench_engine.py [--sizes 1000,10000,50000,100000] [--runs 5] [--big-runs 3] [--peers] [--write]
"""
from __future__ import annotations

import argparse
import shutil
import sys

from common import EXE, LEXICAL, OUT, cpu_probe, load_avg, machine, median, publish, timed, timed_tree, vault, without_folders


def bench_size(n: int, runs: int, mem_runs: int, peers: bool) -> dict:
    v = vault(n)
    cache = OUT / f"cache-{n}"
    env = {**LEXICAL, "MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    shutil.rmtree(cache, ignore_errors=True)
    load, probe = load_avg(), cpu_probe()
    # wall from runs with nothing else watching: the PSS sampler reads /proc every 50 ms, which on two
    # busy cores cost the 10k rebuild ~8% of its wall (2.43 against 2.25 s, interleaved);
    # the memory from runs of their own with it
    rb = [timed([EXE, "rebuild"], env=env) for _ in range(runs)]
    mem = [timed_tree([EXE, "rebuild"], env=env) for _ in range(mem_runs)]
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
    out = {"n": n, "runs": runs, "load": f"{load}–{load_avg()}", "probe": f"{probe:.2f}–{cpu_probe():.2f}",
           "rebuild": median([w for w, _ in rb]),
           "rebuild_rss": max([r for _, r in rb] + [r for _, r, _ in mem]),
           "rebuild_pss": max(p for _, _, p in mem),
           "sync": median([w for w, _ in sy]), "reindex": median([w for w, _ in ri])}
    if peers and n <= 10_000:
        code = "from obsidiantools.api import Vault; Vault(__import__('pathlib').Path(%r)).connect().gather()" % str(v)
        try:
            ot = [timed([sys.executable, "-c", code]) for _ in range(runs)]
            out["ot"] = median([w for w, _ in ot])
            out["ot_rss"] = max(r for _, r in ot)
        except RuntimeError as e:
            out["ot_error"] = without_folders(str(e).splitlines()[-1])[:120]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,50000,100000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--big-runs", type=int, default=3, help="runs at 50,000 notes and more")
    ap.add_argument("--mem-runs", type=int, default=2, help="runs of their own for peak PSS (sampled)")
    ap.add_argument("--peers", action="store_true", help="obsidiantools at 10,000 notes and fewer")
    ap.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    a = ap.parse_args()
    base = [timed([sys.executable, "-c", "pass"])[0] for _ in range(a.runs)]
    rows = [bench_size(int(s), a.runs if int(s) < 50_000 else a.big_runs, a.mem_runs, a.peers) for s in a.sizes.split(",")]
    lines = ["## Engine (issues 2 and 14)", "", f"Machine: {machine()}", "",
             f"Command: `.venv/bin/python bench/bench_engine.py --sizes {a.sizes} --runs {a.runs} "
             f"--big-runs {a.big_runs} --mem-runs {a.mem_runs}{' --peers' if a.peers else ''} --write` (whole "
             f"processes, medians; wall from runs timed by GNU time alone; peak memory from {a.mem_runs} more "
             f"runs of each size, where a sampler (every 50 ms, from /proc) adds up the PSS of the rebuild with "
             f"its parse workers and its second output process: it slows the runs it watches; RSS is the "
             f"largest process of all the runs (GNU time); "
             f"`python -c pass` baseline {median(base) * 1000:.0f} ms). The machine may be shared with other "
             "work: the load average (1 min) at the start and end of each row says how busy it was, and the CPU "
             "probe (`common.cpu_probe`: seconds a fixed pure-Python loop takes, at the start and end of each row; "
             "lower is faster) how fast its CPU ran: `python -c pass` does not show a contended host.", "",
             "| notes | runs | load | CPU probe | rebuild | rebuild peak RSS (largest process) | rebuild peak PSS (all processes) "
             "| sync, nothing changed | reindex one note |" + (" obsidiantools 0.11.0 | ratio |" if a.peers else ""),
             "|---|---|---|---|---|---|---|---|---|" + ("---|---|" if a.peers else "")]
    for r in rows:
        line = (f"| {r['n']:,} | {r['runs']} | {r['load']} | {r['probe']} s | {r['rebuild']:.2f} s | "
                f"{r['rebuild_rss']:.0f} MB | "
                f"{r['rebuild_pss']:.0f} MB | {r['sync'] * 1000:.0f} ms | {r['reindex'] * 1000:.0f} ms |")
        if a.peers:
            ot = f"{r['ot']:.2f} s ({r['ot_rss']:.0f} MB)" if "ot" in r else (r.get("ot_error") or "not run")
            line += f" {ot} | {r['ot'] / r['rebuild']:.1f}× |" if "ot" in r else f" {ot} | - |"
        lines.append(line)
    small, big = rows[0], rows[-1]
    lines += ["", f"reindex {big['n']:,}/{small['n']:,} ratio: {big['reindex'] / small['reindex']:.2f}. "
              "Budgets: rebuild 10k ≤ 2.5 s, 100k ≤ 60 s; peak memory 50k ≤ 500 MB, 100k ≤ 800 MB; "
              "sync 10k ≤ 1 s; reindex 10k ≤ 150 ms."]
    publish("engine", lines, a.write)


if __name__ == "__main__":
    main()
