"""graph.html benchmarks (issue 5): writing the page as a whole process (`memory-plugin view`), its
size, and first paint / interactive / layout settled in headless Chromium, at 1k and 10k notes; a
page that opens on its entry points also times a click that adds a note's neighbours and the switch
to the whole graph (until its layout settles).

    .venv/bin/python bench/bench_view.py [--sizes 1000,10000] [--runs 5] [--loads 5] [--citing 300] [--write]

--citing N adds N notes that cite this checkout's source files (bench_code_hook.citing_notes), so the
page also carries the files they cite as nodes.

Needs Debian's chromium (/usr/bin/chromium) and the playwright package; without them only the
writing side is measured.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

from common import EXE, LEXICAL, OUT, machine, median, publish, timed, vault

CHROMIUM = os.environ.get("MEMORY_PLUGIN_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def browser_times(page_path, loads: int) -> dict | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not os.access(CHROMIUM, os.X_OK):
        return None
    fp, inter, wall, settled, search, reqs = [], [], [], [], [], set()
    first, expand, whole = [], [], []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for _ in range(loads):
                page = b.new_page(viewport={"width": 1400, "height": 900})
                page.on("request", lambda r: reqs.add(r.url))
                t0 = time.perf_counter()
                page.goto(page_path.as_uri())
                while not page.evaluate("window.__graph !== undefined"):
                    page.wait_for_timeout(5)
                wall.append(time.perf_counter() - t0)
                paint = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0")
                fp.append(max(paint, page.evaluate("__graph.firstPaint()")) / 1000)
                # interactive: handlers attached and the first frame on screen, whichever is later
                inter.append(max(fp[-1], page.evaluate("__graph.interactiveAt()") / 1000))
                while not page.evaluate("__graph.settled()"):
                    page.wait_for_timeout(20)
                settled.append(time.perf_counter() - t0)
                search.append(page.evaluate("""() => { const s = document.getElementById('search');
                    s.value = 'vault'; const t = performance.now(); s.dispatchEvent(new Event('input'));
                    return performance.now() - t; }""") / 1000)
                page.evaluate("document.getElementById('search').dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}))")
                first.append(page.evaluate("__graph.drawnCount()"))
                entry = page.evaluate("__graph.entryIds ? __graph.entryIds() : []")
                if entry and page.evaluate("__graph.mode()") == "entry":
                    pos = page.evaluate(f"__graph.screenPos({json.dumps(entry[0])})")
                    t = time.perf_counter()
                    page.mouse.click(pos["x"], pos["y"])
                    page.evaluate("0")  # the click handled
                    expand.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    page.click("#mode")
                    while not page.evaluate("__graph.settled()"):
                        page.wait_for_timeout(20)
                    whole.append(time.perf_counter() - t)
                page.close()
        finally:
            b.close()
    return {"first_paint": median(fp), "interactive": median(inter), "wall": median(wall),
            "settled": median(settled), "search": median(search), "requests": len(reqs), "first": median(first),
            "expand": median(expand) if expand else None, "whole": median(whole) if whole else None}


def bench_size(n: int, runs: int, loads: int, citing: int = 0) -> dict:
    v = vault(n)
    cache = OUT / f"cache-{n}"
    if citing:  # a copy of the generated vault with notes citing code
        from bench_code_hook import citing_notes

        src, v, cache = v, OUT / f"viewvault-{n}-{citing}", OUT / f"viewcache-{n}-{citing}"
        shutil.rmtree(v, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(src, v, ignore=shutil.ignore_patterns(".groundtruth"))
        citing_notes(v, citing)
    env = {**LEXICAL, "MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}  # no embedding
    # a fresh index (not timed): a cache left by an older schema would make `view` refuse
    subprocess.run([EXE, "rebuild"], env={**os.environ, **env}, check=True, capture_output=True)
    page = cache / "graph.html"
    writes = []
    for _ in range(runs):
        page.unlink(missing_ok=True)  # so nothing is skipped as unchanged
        writes.append(timed([EXE, "view"], env=env))
    out = {"n": n, "write": median([w for w, _ in writes]), "rss": max(r for _, r in writes),
           "size": page.stat().st_size}
    out["browser"] = browser_times(page, loads)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--citing", type=int, default=0, help="add this many notes citing this checkout's code")
    ap.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    a = ap.parse_args()
    base = median([timed([sys.executable, "-c", "pass"])[0] for _ in range(a.runs)])
    rows = [bench_size(int(s), a.runs, a.loads, a.citing) for s in a.sizes.split(",")]
    lines = ["## Graph view (issue 5)", "", f"Machine: {machine()}", "",
             f"Command: `.venv/bin/python bench/bench_view.py --sizes {a.sizes} --runs {a.runs} --loads {a.loads}"
             f"{f' --citing {a.citing}' if a.citing else ''} --write`."
             f"{f' Each vault plus {a.citing} notes citing this checkout’s code (the files they cite are nodes).' if a.citing else ''}"
             f" Writing: `memory-plugin view` as a whole process, median of {a.runs} runs "
             f"(`python -c pass` baseline {base * 1000:.0f} ms). Browser: headless Debian Chromium from file://, "
             f"median of {a.loads} loads in one running browser; first paint and interactive are measured by the "
             "page from navigation start (interactive = first frame drawn and every handler attached); "
             "settled = the layout has stopped moving, from `goto`. First view: nodes drawn when the page opens "
             "(a vault of more than 120 notes opens on its entry points). Click: a click on the first entry point "
             "adds its neighbours, until handled. Whole graph: the button, until that layout settles.", "",
             "| notes | write graph.html | peak RSS | file size | first paint | interactive | layout settled "
             "| search keystroke | network requests | first view | click | whole graph |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b = r["browser"]
        ms = lambda x: "–" if x is None else f"{x * 1000:.0f} ms"  # noqa: E731
        cells = (f"{b['first_paint'] * 1000:.0f} ms | {b['interactive'] * 1000:.0f} ms | {b['settled']:.2f} s | "
                 f"{b['search'] * 1000:.0f} ms | {b['requests'] - 1} | {b['first']:,} nodes | {ms(b['expand'])} | "
                 f"{'–' if b['whole'] is None else format(b['whole'], '.2f') + ' s'} |"
                 ) if b else "not measured (no chromium) | | | | | | | |"
        lines.append(f"| {r['n']:,} | {r['write']:.2f} s | {r['rss']:.0f} MB | {r['size'] / 1e6:.1f} MB | {cells}")
    lines += ["", "Budgets at 10k notes: writing ≤ 2 s, interactive ≤ 3 s, file < 10 MB. The page opens on the "
              "vault's entry points (the `hub_count` hubs) and grows by clicks and search; the whole graph draws at most "
              "`html_max_nodes` (1,500) nodes: hubs and their neighbourhoods; search covers every note."]
    publish("view", lines, a.write)


if __name__ == "__main__":
    main()
