"""Warm SessionStart of two checkouts, interleaved in one run, so that both see the same machine load:
each run is `python -m memory_plugin hook session-start` (with that checkout on PYTHONPATH) from a
project folder with a new session id, over a vault each checkout has indexed in a cache of its own;
the detached worker a run starts finishes before the next run.

    git worktree add --detach ../before COMMIT
    .venv/bin/python bench/bench_warm_ab.py --a ../before --b . --vault fixtures/devvault [--runs 20]

Prints a markdown row per checkout: median and p95 of the whole process, the median over a bare
`python -c pass` (measured in the same run), and the median time until the brief is on stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import wait_worker  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=Path, required=True, help="checkout A (a folder holding memory_plugin/)")
    ap.add_argument("--b", type=Path, required=True, help="checkout B")
    ap.add_argument("--vault", type=Path, required=True, help="the vault both index (never written)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--project", default="tollgate-api",
                    help="the name of the folder the hook runs from (a project of the vault, for a real brief)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter both run under")
    ap.add_argument("--cache-from", type=Path, help="a cache dir of this vault whose index (and vectors) each "
                    "checkout's rebuild starts from: with semantic search on, nothing is embedded again")
    a = ap.parse_args()
    trees = {"A": a.a.resolve(), "B": a.b.resolve()}
    vault = str(a.vault.resolve())
    res: dict[str, list[float]] = {k: [] for k in trees}
    brief: dict[str, list[float]] = {k: [] for k in trees}
    base = []
    with tempfile.TemporaryDirectory(prefix="warm-ab-") as tmp:
        work = Path(tmp) / a.project
        work.mkdir()

        def env(name: str) -> dict:
            return {**os.environ, "PYTHONPATH": str(trees[name]), "MEMORY_PLUGIN_VAULT": vault,
                    "MEMORY_PLUGIN_CACHE_DIR": str(Path(tmp) / f"cache-{name}")}

        for name, tree in trees.items():
            if a.cache_from:
                (Path(tmp) / f"cache-{name}").mkdir()
                shutil.copyfile((a.cache_from / "index.sqlite").resolve(), Path(tmp) / f"cache-{name}" / "index.sqlite")
            # measure what a user runs: compiled bytecode, as an installed package has
            subprocess.run([a.python, "-m", "compileall", "-q", str(tree / "memory_plugin")], check=True)
            subprocess.run([a.python, "-m", "memory_plugin", "rebuild"], env=env(name), check=True, capture_output=True,
                           cwd=work)
        for _ in range(a.runs):
            for name in trees:
                t0 = time.perf_counter()
                # from the project folder, as Claude Code runs it (and `-m` puts the working folder first
                # on sys.path: run from a checkout, both would import that checkout)
                p = subprocess.Popen([a.python, "-m", "memory_plugin", "hook", "session-start"], env=env(name), cwd=work,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                # a new session id each time, as each session's start has: its state is a new file
                sid = f"warm-ab-{name}-{len(res[name])}"
                p.stdin.write(json.dumps({"cwd": str(work), "source": "startup", "session_id": sid}).encode())
                p.stdin.close()
                out = os.read(p.stdout.fileno(), 1 << 20)  # the brief: one write
                brief[name].append(time.perf_counter() - t0)
                out += p.stdout.read()
                err = p.stderr.read()
                p.wait()
                res[name].append(time.perf_counter() - t0)
                if p.returncode != 0 or not out.startswith(b"{"):
                    raise SystemExit(f"checkout {name}: the hook failed: {err[-500:].decode(errors='replace')}")
                wait_worker(Path(tmp) / f"cache-{name}")  # its detached sync must not slow the next run
            t0 = time.perf_counter()
            subprocess.run([a.python, "-c", "pass"])
            base.append(time.perf_counter() - t0)
    b = statistics.median(base)
    print("| checkout | median | p95 | × python -c pass | brief on stdout (median) |\n|---|---|---|---|---|")
    for name, tree in trees.items():
        xs = sorted(res[name])
        m = statistics.median(xs)
        print(f"| {name} ({tree}) | {m * 1000:.0f} ms | {xs[int(0.95 * (len(xs) - 1))] * 1000:.0f} ms | {m / b:.1f}× "
              f"| {statistics.median(brief[name]) * 1000:.0f} ms |")
    print(f"bare python -c pass median {b * 1000:.1f} ms; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
