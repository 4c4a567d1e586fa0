"""Cold SessionStart (issue 11): the first SessionStart of a vault that has no index yet, as a whole
process, at 100 / 1k / 3k / 10k notes. Up to `cold_start_max_notes` (3,000) it builds the index
inline; above, it briefs from a bounded read of the convention and hub notes and starts a detached
build. Median and p95 of N runs, each from an empty cache dir; bare `python -c pass` in the same
run; the hook timeout install registers is 10 s.

    .venv/bin/python bench/bench_coldstart.py [--sizes 100,1000,3000,10000] [--runs 5] [--write]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

from bench_hooks import _wait_idle
from common import EXE, OUT, machine, median, p95, publish, timed, vault

HOOK_TIMEOUT = 10.0  # seconds: install.with_ours registers `"timeout": 10`


def bench_size(n: int, runs: int, work) -> dict:
    v = vault(n)
    cache = OUT / f"coldcache-{n}"
    env = {"MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    walls, rss, path, chars = [], [], "", 0
    for i in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        out = OUT / f".cold-{os.getpid()}.json"
        w, r = timed(["sh", "-c", f"{EXE} hook session-start > {out}"], env=env,
                     input=json.dumps({"session_id": f"c{i}", "source": "startup", "cwd": str(work)}))
        text = json.loads(out.read_text())["hookSpecificOutput"]["additionalContext"]
        path = "bounded read + detached build" if "still being built" in text else "inline build"
        chars = len(text)
        walls.append(w)
        rss.append(r)
        _wait_idle(cache)
    return {"walls": walls, "rss": max(rss), "path": path, "chars": chars}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,1000,3000,10000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    work = OUT / "project-bench"
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",")]
    load0 = os.getloadavg()[0]
    res = {n: bench_size(n, a.runs, work) for n in sizes}
    load1 = os.getloadavg()[0]
    base = median([timed([sys.executable, "-c", "pass"])[0] for _ in range(a.runs)])
    lines = ["## Cold SessionStart (issue 11)", "", f"Machine: {machine()}", "",
             f"Command: `.venv/bin/python bench/bench_coldstart.py --sizes {a.sizes} --runs {a.runs} --write` "
             f"(the first SessionStart of a generated vault with an empty cache dir, a whole process through the "
             f"installed console script; median and p95 of {a.runs} runs; bare `python -c pass` in the same run: "
             f"{base * 1000:.1f} ms; the hook timeout `install` registers: {HOOK_TIMEOUT:.0f} s; 1-minute load average "
             f"{load0:.1f} before and {load1:.1f} after, on 2 cores).", "",
             "| notes | what it does | median / p95 | peak RSS | brief characters | share of the 10 s timeout |",
             "|---|---|---|---|---|---|"]
    for n in sizes:
        r = res[n]
        lines.append(f"| {n:,} | {r['path']} | {median(r['walls']) * 1000:.0f} / {p95(r['walls']) * 1000:.0f} ms | "
                     f"{r['rss']:.0f} MB | {r['chars']:,} | {max(r['walls']) / HOOK_TIMEOUT * 100:.0f} % (slowest run) |")
    lines += ["", "With an index the SessionStart is the warm path of the Hooks section above (unchanged by issue 11)."]
    publish("coldstart", lines, a.write)


if __name__ == "__main__":
    main()
