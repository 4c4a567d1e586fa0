"""Warm SessionStart of two checkouts, interleaved in one run, so that both see the same machine load:
each run is `python -m memory_plugin hook session-start` (with that checkout on PYTHONPATH) from a
project folder, over a vault each checkout has indexed in a cache of its own.

    git worktree add --detach ../before COMMIT
    .venv/bin/python bench/bench_warm_ab.py --a ../before --b . --vault fixtures/devvault [--runs 20]

Prints a markdown row per checkout: median, p95, and the median over a bare `python -c pass`.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=Path, required=True, help="checkout A (a folder holding memory_plugin/)")
    ap.add_argument("--b", type=Path, required=True, help="checkout B")
    ap.add_argument("--vault", type=Path, required=True, help="the vault both index (never written)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--project", default="tollgate-api",
                    help="the name of the folder the hook runs from (a project of the vault, for a real brief)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter both run under")
    a = ap.parse_args()
    trees = {"A": a.a.resolve(), "B": a.b.resolve()}
    vault = str(a.vault.resolve())
    res: dict[str, list[float]] = {k: [] for k in trees}
    base = []
    with tempfile.TemporaryDirectory(prefix="warm-ab-") as tmp:
        work = Path(tmp) / a.project
        work.mkdir()

        def env(name: str) -> dict:
            return {**os.environ, "PYTHONPATH": str(trees[name]), "MEMORY_PLUGIN_VAULT": vault,
                    "MEMORY_PLUGIN_CACHE_DIR": str(Path(tmp) / f"cache-{name}")}

        for name, tree in trees.items():
            # measure what a user runs: compiled bytecode, as an installed package has
            subprocess.run([a.python, "-m", "compileall", "-q", str(tree / "memory_plugin")], check=True)
            subprocess.run([a.python, "-m", "memory_plugin", "rebuild"], env=env(name), check=True, capture_output=True)
        for _ in range(a.runs):
            for name in trees:
                t0 = time.perf_counter()
                r = subprocess.run([a.python, "-m", "memory_plugin", "hook", "session-start"], env=env(name),
                                   capture_output=True, text=True, input=json.dumps({"cwd": str(work), "source": "startup"}))
                res[name].append(time.perf_counter() - t0)
                if r.returncode != 0 or not r.stdout.startswith("{"):
                    raise SystemExit(f"checkout {name}: the hook failed: {r.stderr[-500:]}")
                time.sleep(0.3)  # let the detached sync finish before the next run
            t0 = time.perf_counter()
            subprocess.run([a.python, "-c", "pass"])
            base.append(time.perf_counter() - t0)
    b = statistics.median(base)
    print("| checkout | median | p95 | × python -c pass |\n|---|---|---|---|")
    for name, tree in trees.items():
        xs = sorted(res[name])
        m = statistics.median(xs)
        print(f"| {name} ({tree}) | {m * 1000:.0f} ms | {xs[int(0.95 * (len(xs) - 1))] * 1000:.0f} ms | {m / b:.1f}× |")
    print(f"bare python -c pass median {b * 1000:.1f} ms; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
