#!/usr/bin/env python3
"""Whole-process timings of query, search, explain and remember on a generated vault, and the
retrieval eval on the fixture vault; both printed as markdown tables.

    python3 bench/bench_query.py [--notes 10000] [--runs 7] [--keep DIR]
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

ROOT = Path(__file__).resolve().parent.parent
GEN = ROOT.parent / "shared" / "bench" / "gen_vault.py"
EXE = Path(sys.executable).parent / "memory-plugin"
BUDGET_MS = {"query": 300, "search": 300, "explain": 300, "remember": 300}


def cli(env, *args, check=True):
    cmd = [str(EXE)] if EXE.exists() else [sys.executable, "-m", "memory_plugin"]
    t = time.perf_counter()
    r = subprocess.run(cmd + list(args), capture_output=True, text=True, env=env)
    ms = (time.perf_counter() - t) * 1000
    if check and r.returncode != 0:
        raise SystemExit(f"memory-plugin {' '.join(args)} failed: {r.stderr}")
    return ms, r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--keep", help="Generate the vault here and keep it.")
    ap.add_argument("--write", action="store_true", help="update the query section of bench/RESULTS.md")
    a = ap.parse_args()
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        _run(a)
    text = buf.getvalue()
    print(text)
    if a.write:
        sys.path.insert(0, str(ROOT / "bench"))
        from common import machine, write_section

        write_section("query", f"## Query and memory (issue 4)\n\nMachine: {machine()}\n\n"
                               f"Command: `.venv/bin/python bench/bench_query.py --notes {a.notes} --runs {a.runs} "
                               f"--write`\n\n{text}")


def _run(a) -> None:
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="mp-bench-q-"))
    vault, cache = work / "vault", work / "cache"
    # the lexical engine unless the caller names a model (with the semantic extra installed, the first
    # rebuild would embed every note: bench_semantic.py measures that layer)
    env = {**os.environ, "MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cache),
           "HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "home" / ".config"),
           "MEMORY_PLUGIN_EMBEDDING_MODEL": os.environ.get("MEMORY_PLUGIN_EMBEDDING_MODEL", "off")}
    if not (vault / ".generated").exists():
        subprocess.run([sys.executable, str(GEN), "--notes", str(a.notes), "--seed", "1", "--out", str(vault),
                        "--force"], check=True, capture_output=True)
        (vault / ".generated").write_text("")
    cli(env, "rebuild")
    hubs = json.loads(cli(env, "hubs", "--json", "-n", "3")[1].stdout)
    hub = hubs[0]["path"]
    word = Path(hub).stem.split()[0]
    cases = {
        "query": [("query", f"{word} pipeline cache"), ("query", "what do we know about conventions for logging?"),
                  ("query", word, "--type", "convention")],
        "search": [("search", f"{word} pipeline"), ("search", "batch")],
        "explain": [("explain", hub)],
    }
    cli(env, *cases["query"][0])  # warm the page cache once
    rows = []
    for name, variants in cases.items():
        times = []
        for i in range(a.runs):
            for v in variants:
                times.append(cli(env, *v)[0])
        rows.append((name, statistics.median(times), max(times), len(times)))
    rt = []
    for i in range(a.runs):
        wait_worker(cache)  # the last write's detached brief worker: each remember as a user's single one
        rt.append(cli(env, "remember", "--type", "learning", "--title", f"Bench lesson {i}",
                      "--summary", f"Benchmark lesson number {i} about zebra{i} stripes.", "--force")[0])
    rows.append(("remember", statistics.median(rt), max(rt), len(rt)))
    n = sum(1 for _ in vault.rglob("*.md"))
    print(f"### query layer at {n} notes (whole processes, median of {a.runs}+ runs, {os.cpu_count()} cores)\n")
    print("| command | median ms | max ms | runs | budget ms | ok |")
    print("|---|---:|---:|---:|---:|---|")
    for name, med, mx, k in rows:
        print(f"| {name} | {med:.0f} | {mx:.0f} | {k} | {BUDGET_MS[name]} | {'yes' if med <= BUDGET_MS[name] else 'NO'} |")
    print()
    # The retrieval eval on (a copy of) the fixture vault.
    fx = work / "fixture"
    shutil.rmtree(fx, ignore_errors=True)
    shutil.copytree(ROOT / "fixtures" / "vault", fx / "vault")
    (fx / "eval").mkdir()
    shutil.copy(ROOT / "fixtures" / "eval" / "questions.yaml", fx / "eval" / "questions.yaml")
    env2 = {k: v for k, v in env.items() if k not in ("MEMORY_PLUGIN_VAULT", "MEMORY_PLUGIN_CACHE_DIR")}
    _, r = cli(env2, "--cache-dir", str(fx / "cache"), "eval", str(fx / "eval" / "questions.yaml"))
    print("### retrieval eval (fixtures/eval/questions.yaml over fixtures/vault)\n")
    print(r.stdout.split("\n", 2)[2] if r.stdout.count("\n") > 2 else r.stdout)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
