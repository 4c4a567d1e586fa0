"""memory-plugin side by side with graphify (`graphifyy`, offline `graphify update`) and obsidiantools,
on the same generated vaults: full build, update after one edited note, one query (each a whole
process: wall seconds and peak RSS via GNU time), and link fidelity against the generator's
ground truth (.groundtruth/links.jsonl).

    .venv/bin/pip install -e '.[bench]'        # obsidiantools==0.11.0, graphifyy==0.9.96
    .venv/bin/python bench/compare.py [--sizes 1000,10000] [--no-real] [--no-write]

Fidelity is over unique (source note, target) edges, same-note links left out; a dangling target
counts as "?" + its lowercased name. Each tool's edges are read from what it persists or exposes.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import EXE, GEN, LEXICAL, OUT, load_avg, machine, median, timed, vault as gen_vault, without_folders, write_section  # noqa: E402

PY = sys.executable
GRAPHIFY = str(Path(PY).parent / "graphify")
# Knobs for a vault shaped like the public vaults in docs/design.md ("What real vaults contain"):
# a quarter of links written with the folder path, case variants, duplicate names (some differing
# only in case), structure in properties, many dangling "notes to write", decoys in code and comments.
REAL_KNOBS = ["--path-link-share", "0.25", "--case-variant-link-share", "0.12", "--dup-share", "0.08",
              "--case-variant-dup-share", "0.3", "--frontmatter-link-share", "0.35", "--dangling-share", "0.15",
              "--md-link-share", "0.05", "--non-ascii-share", "0.12", "--hub-share", "0.03",
              "--hub-out-links", "120", "--code-share", "0.1", "--comment-share", "0.1"]
REAL_NOTES = 3000
RUNS = 1  # full builds per tool (--runs): the median wall and the largest RSS are reported
MP_RUNS = 5  # memory-plugin's full builds at least (seconds each, where a peer's take a minute)


def builds(fn, runs: int | None = None) -> tuple[float, float]:
    """`fn()` -> (wall, rss), `runs` (default RUNS) times: median wall, largest RSS."""
    rs = [fn() for _ in range(runs or RUNS)]
    return median([w for w, _ in rs]), max(r for _, r in rs)

OT_SCRIPT = r"""
import json, sys
from pathlib import Path
import obsidiantools.api as ot
v = ot.Vault(Path(sys.argv[1])).connect().gather()
mode = sys.argv[2]
if mode == "query":
    print(json.dumps(v.get_backlinks(sys.argv[3])[:20]))
elif mode == "edges":
    idx = {k: str(p).replace("\\", "/") for k, p in v.md_file_index.items()}
    media = {k: str(p).replace("\\", "/") for k, p in getattr(v, "media_file_index", {}).items()}
    out = []
    for name, src in idx.items():
        links = list(v.wikilinks_index.get(name, [])) + list(getattr(v, "md_links_index", {}).get(name, []) or [])
        links += list(getattr(v, "embedded_files_index", {}).get(name, []) or [])
        for t in links:
            out.append([src, idx.get(t) or media.get(t) or idx.get(t.rsplit("/", 1)[-1]) or "?" + t.lower()])
    print(json.dumps(out))
"""


def truth(vault: Path) -> set[tuple[str, str]]:
    edges = set()
    for line in (vault / ".groundtruth" / "links.jsonl").open(encoding="utf-8"):
        r = json.loads(line)
        t = r["target"] if r["target"] else "?" + r["dangling_name"].lower()
        if t != r["src"]:
            edges.add((r["src"], t))
    return edges


def score(got: set, want: set) -> tuple[float, float]:
    tp = len(got & want)
    return tp / len(want) if want else 1.0, tp / len(got) if got else 0.0


def pick_note(vault: Path) -> Path:
    for line in (vault / ".groundtruth" / "notes.jsonl").open(encoding="utf-8"):
        r = json.loads(line)
        p = vault / r["path"] if "path" in r else None
        if p and p.exists() and p.stat().st_size > 200:
            return p
    return sorted(vault.rglob("*.md"))[0]


def edit(note: Path, i: int) -> None:
    with open(note, "a", encoding="utf-8") as f:
        f.write(f"\nEdited for the comparison {i} [[Compare target {i}]]\n")


# ---------------------------------------------------------------- the three tools

def run_memory_plugin(vault: Path, work: Path, query: str) -> dict:
    cache = work / "mp-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = {**LEXICAL, "MEMORY_PLUGIN_VAULT": str(vault), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    res = {}
    # a 2 s build meets a passing blip of load far more than a 60 s one: the median of a few
    res["build"] = builds(lambda: timed([EXE, "rebuild"], env=env), max(RUNS, MP_RUNS))
    note = pick_note(vault)
    edit(note, 1)
    res["update"] = timed([EXE, "reindex", str(note)], env=env)
    edit(note, 2)
    res["update_sync"] = timed([EXE, "sync"], env=env)
    res["query"] = timed([EXE, "query", query], env=env)
    import sqlite3
    conn = sqlite3.connect(cache / "index.sqlite")
    res["edges"] = {(s, t if t else "?" + lp.lower()) for s, lp, t in
                    conn.execute("SELECT src, linkpath, target FROM links") if s != t}
    conn.close()
    return res


def run_graphify(vault: Path, work: Path, query: str) -> dict:
    copy = work / "graphify-vault"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".groundtruth"))
    env = {"GRAPHIFY_FORCE": "1"}
    for k in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        env[k] = ""
    res = {}

    def fresh_build():
        shutil.rmtree(copy / "graphify-out", ignore_errors=True)  # no cache: a full build each time
        return timed([GRAPHIFY, "update", str(copy)], env=env, cwd=copy)
    res["build"] = builds(fresh_build)
    note = copy / pick_note(vault).relative_to(vault)
    edit(note, 1)
    res["update"] = timed([GRAPHIFY, "update", str(copy)], env=env, cwd=copy)
    res["query"] = timed([GRAPHIFY, "query", query, "--graph", str(copy / "graphify-out" / "graph.json")],
                         env=env, cwd=copy)
    g = json.loads((copy / "graphify-out" / "graph.json").read_text(encoding="utf-8"))
    nodes = {n["id"]: n for n in g["nodes"]}
    edges = set()
    for e in g.get("links", g.get("edges", [])):
        if e.get("relation") == "contains":
            continue
        s, t = nodes.get(e["source"], {}), nodes.get(e["target"], {})
        src = e.get("source_file") or s.get("source_file")
        tgt = t.get("source_file") or "?" + str(t.get("label", e["target"])).lower()
        if src and src != tgt:
            edges.add((src, tgt))
    res["edges"] = edges
    return res


def run_obsidiantools(vault: Path, work: Path, query_note: str) -> dict:
    script = work / "ot_run.py"
    script.write_text(OT_SCRIPT)
    res = {}
    res["build"] = builds(lambda: timed([PY, str(script), str(vault), "build"]))
    note = pick_note(vault)
    edit(note, 3)
    res["update"] = timed([PY, str(script), str(vault), "build"])  # no incremental path: everything again
    res["query"] = timed([PY, str(script), str(vault), "query", query_note])
    out = subprocess.run([PY, str(script), str(vault), "edges"], capture_output=True, text=True, check=True)
    res["edges"] = {(s, t) for s, t in json.loads(out.stdout) if s != t}
    return res


def version(pkg: str) -> str:
    from importlib.metadata import PackageNotFoundError, version as v

    try:
        return v(pkg)
    except PackageNotFoundError:
        return "not installed"


def fmt(x) -> str:
    if isinstance(x, str):
        return x
    wall, rss = x
    return f"{wall:.2f} s / {rss:.0f} MB"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--write", action="store_true", help="the default; accepted like the other benchmarks")
    ap.add_argument("--runs", type=int, default=1, help="full builds per tool (median wall, largest RSS)")
    a = ap.parse_args()
    global RUNS
    RUNS = a.runs
    vaults = [(f"generated {int(n):,}", gen_vault(int(n))) for n in a.sizes.split(",") if n]
    if not a.no_real:
        real = OUT / f"vault-real-{REAL_NOTES}"
        if not (real / ".groundtruth" / "summary.json").exists():
            subprocess.run([PY, str(GEN), "--notes", str(REAL_NOTES), "--seed", "1", "--out", str(real), "--force",
                            *REAL_KNOBS], check=True, capture_output=True)
        vaults.append((f"real-shaped {REAL_NOTES:,}", real))
    load = os.getloadavg()
    rows, ratios = [], []
    for label, v in vaults:
        work = OUT / f"compare-{v.name}"
        work.mkdir(parents=True, exist_ok=True)
        # each tool edits a note: start every tool from the same pristine copy
        pristine = work / "vault"
        shutil.rmtree(pristine, ignore_errors=True)
        shutil.copytree(v, pristine)
        want = truth(pristine)
        q_note = pick_note(pristine).stem
        results = {}
        for tool, fn, q in (("memory-plugin", run_memory_plugin, q_note), ("graphify", run_graphify, q_note),
                            ("obsidiantools", run_obsidiantools, q_note)):
            copy = work / f"v-{tool}"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(pristine, copy)
            print(f"{label}: {tool} ...", file=sys.stderr, flush=True)
            try:
                start = load_avg()
                r = fn(copy, work, q)
                r["load"] = f"{start}–{load_avg()}"
                got = {e for e in r["edges"] if not e[1].startswith("?compare target")}  # our edits
                r["recall"], r["precision"] = score(got, want)
            except Exception as e:  # a peer that fails a step is reported, not dropped
                r = {"error": f"{type(e).__name__}: {without_folders(str(e))[-200:]}"}
            results[tool] = r
        mp = results["memory-plugin"]
        for tool, r in results.items():
            if "error" in r:
                rows.append(f"| {label} | {tool} | failed: {r['error']} | | | | | |")
                continue
            upd = fmt(r["update"])
            if tool == "memory-plugin":
                upd += f" (reindex); sync {fmt(r['update_sync'])}"
            elif tool == "obsidiantools":
                upd += " (no incremental update: full re-read)"
            else:
                upd += " (`graphify update`, AST cache)"
            qry = fmt(r["query"])
            if tool == "obsidiantools":
                qry += " (no index: `get_backlinks` after a full read)"
            elif tool == "graphify":
                qry += " (BFS over graph.json)"
            else:
                qry += " (`query`, FTS + graph)"
            rows.append(f"| {label} | {tool} | {fmt(r['build'])} | {upd} | {qry} | "
                        f"{r['recall']:.3f} | {r['precision']:.3f} | {r['load']} |")
            if tool != "memory-plugin" and "error" not in mp:
                ratios.append(f"- {label}, {tool} / memory-plugin: build {r['build'][0] / mp['build'][0]:.1f}× wall, "
                              f"{r['build'][1] / mp['build'][1]:.1f}× RSS; update {r['update'][0] / mp['update'][0]:.1f}×; "
                              f"query {r['query'][0] / mp['query'][0]:.1f}×; edge recall {r['recall']:.3f} vs "
                              f"{mp['recall']:.3f}")
        print(f"{label}: {len(want)} ground-truth edges", file=sys.stderr)
    body = "\n".join([
        "## memory-plugin vs graphify vs obsidiantools (`bench/compare.py`)", "",
        f"`python bench/compare.py --sizes {a.sizes}{' --no-real' if a.no_real else ''} --runs {a.runs}`; "
        f"memory-plugin {version('memory-plugin')}, graphifyy {version('graphifyy')}, "
        f"obsidiantools {version('obsidiantools')}. Every figure is a whole process (wall / peak RSS, GNU time); "
        f"full build: median of {a.runs} run(s) (graphify without its cache each time; memory-plugin "
        f"{max(a.runs, MP_RUNS)}), the rest one run; "
        f"load average at start {load[0]:.2f}, and per tool (1 min, at its start and end) in the last column: "
        "the machine is shared.", "",
        f"Real-shaped vault: `gen_vault.py --notes {REAL_NOTES} --seed 1 {' '.join(REAL_KNOBS)}`.", "",
        "| vault | tool | full build | update after one edited note | one query | edge recall | edge precision | load |",
        "|---|---|---|---|---|---|---|---|", *rows, "",
        "Edge recall / precision: unique (source note, target) pairs against `.groundtruth/links.jsonl`, "
        "dangling targets included (as their lowercased name), same-note links left out. graphify keeps only "
        "links that resolve to a page (no dangling nodes); obsidiantools keys notes by file name, so "
        "duplicate names and folder-path links collapse.", "", "Ratios (peer / memory-plugin):", *ratios, "",
        f"Machine: {machine()}."])
    print(body)
    if not a.no_write:
        write_section("compare", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
