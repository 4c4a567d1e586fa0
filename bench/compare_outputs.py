"""Are two builds of one vault the same? Rebuilds a vault with two checkouts' console scripts (or
compares two cache dirs already built) and compares every table of the index row by row, and
graph.json, GRAPH_REPORT.md, graph.html and the brief byte for byte, with only the build times
masked (the report's "index updated" minute, graph.html's `updated`, brief.json's times, meta's
time keys). For engine changes that must not change what is computed.

    python bench/compare_outputs.py --vault DIR --a OTHER_CHECKOUT/.venv/bin/memory-plugin \
        --b .venv/bin/memory-plugin [--work DIR]
    python bench/compare_outputs.py --caches CACHE_A CACHE_B
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

TIME_KEYS = {"built_at", "synced_at", "changed_at", "generation", "collected_at"}


def build(exe: str, vault: str, cache: Path) -> None:
    shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, "MEMORY_PLUGIN_EMBEDDING_MODEL": "off", "MEMORY_PLUGIN_VAULT": vault,
           "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    # run from outside any project, so that nothing of the caller's folder enters the build
    subprocess.run([exe, "rebuild"], env=env, check=True, capture_output=True, cwd=tempfile.gettempdir())


def index_digests(cache: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{cache / 'index.sqlite'}?mode=ro", uri=True)
    out = {}
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') "
                                         "AND sql IS NOT NULL ORDER BY name")]
    out["schema"] = hashlib.sha256(repr(conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()).encode()).hexdigest()
    for t in tables:
        if conn.execute("SELECT type FROM sqlite_master WHERE name=?", (t,)).fetchone()[0] != "table":
            continue
        h = hashlib.sha256()
        sql = f"SELECT rowid, * FROM {t}" if not t.endswith("_config") else f"SELECT * FROM {t}"
        try:
            cur = conn.execute(sql + (" ORDER BY rowid" if not t.endswith("_config") else ""))
        except sqlite3.OperationalError:  # WITHOUT ROWID shadow tables
            cur = conn.execute(f"SELECT * FROM {t} ORDER BY 1")
        n = 0
        for row in cur:
            if t == "meta" and row[1] in TIME_KEYS:
                continue
            h.update(repr(row).encode("utf-8", "surrogatepass"))
            n += 1
        out[f"table {t}"] = f"{n} rows {h.hexdigest()[:16]}"
    conn.close()
    return out


def file_digests(cache: Path) -> dict[str, str]:
    out = {}
    for name in ("graph.json", "GRAPH_REPORT.md", "graph.html", "brief.md", "brief.json"):
        p = cache / name
        if not p.exists():
            out[name] = "missing"
            continue
        data = p.read_text(encoding="utf-8")
        if name == "GRAPH_REPORT.md":
            data = re.sub(r"index updated \d{4}-\d\d-\d\d \d\d:\d\d", "index updated T", data, count=1)
        elif name == "graph.html":
            data = re.sub(r'"updated":[0-9.e+]+', '"updated":T', data, count=1)
        elif name == "brief.json":
            d = json.loads(data)
            data = json.dumps({k: v for k, v in d.items() if k not in TIME_KEYS}, sort_keys=True)
        out[name] = f"{len(data)} chars {hashlib.sha256(data.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return out


def digests(cache: Path) -> dict[str, str]:
    return {**index_digests(cache), **file_digests(cache)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault")
    ap.add_argument("--a", help="console script A (e.g. main's .venv/bin/memory-plugin)")
    ap.add_argument("--b", help="console script B")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "compare-outputs",
                    help="where the two caches are built (default: compare-outputs in the temp folder)")
    ap.add_argument("--caches", nargs=2)
    a = ap.parse_args()
    if a.caches:
        ca, cb = map(Path, a.caches)
    else:
        work = a.work
        ca, cb = work / "a", work / "b"
        vault = os.path.realpath(a.vault)
        build(a.a, vault, ca)
        build(a.b, vault, cb)
    da, db = digests(ca), digests(cb)
    bad = 0
    for k in sorted(set(da) | set(db)):
        same = da.get(k) == db.get(k)
        bad += not same
        print(f"{'same' if same else 'DIFF'}  {k}: {da.get(k)}" + ("" if same else f" | {db.get(k)}"))
    print("identical" if not bad else f"{bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
