"""UserPromptSubmit hook benchmark (issue 13): the hook as a whole process at 1k and 10k notes,
lexical and semantic, median and p95, with a bare `python -c pass` and the hook with recall off
measured in the same run; plus a prompt of 10,000 characters (cut to 4,000).

    .venv/bin/python bench/bench_prompt.py [--sizes 1000,10000] [--runs 20] [--write]

Vaults: the generated vault of each size (seed 1, bench/common.vault). Semantic rows need embedded
notes: the 1k cache is embedded here once and kept in $MEMORY_PLUGIN_BENCH_DIR (~2 min of CPU the
first time); at 10k the script uses an embedded cache given by --embedded-10k (default
/work/bench10k, the shared one: vault/ and cache/, copied, never written) and skips the semantic
10k rows when there is none (embedding 10k notes takes ~17 min of CPU). Each row cycles through 5
questions naming generated notes and 5 ordinary coding prompts; "new session" runs every prompt as
the first of a session (it reads the brief and detects the project), "same session" as later ones.
Takes ~3-5 min on an idle 2-core machine once the 1k cache is embedded.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from common import EXE, OUT, machine, median, p95, publish, timed, vault

# Words a generated vault never has: they make a question specific enough for retrieval to run in
# full (a generated vault's own words are all common ones, and such prompts end at the hook's bound).
EXTRA = ["kubernetes autoscaler", "stripe webhook", "grafana dashboard", "terraform state", "sentry alert"]
ORDINARY = ["run the tests", "rename this function to parse_args", "why does this fail?",
            "add a --json flag to the export command", "fix the typo in the README"]
BUDGETS = {"lexical": "≤ 120 / 200 ms", "semantic": "≤ 450 / 700 ms"}


def _config(mode: str, recall: bool = True) -> Path:
    """Recall is off by default: the benchmark switches it on (lexical rows also switch semantic off)."""
    OUT.mkdir(parents=True, exist_ok=True)
    f = OUT / f"prompt-{mode}-{'on' if recall else 'off'}.yaml"
    f.write_text(f"prompt_recall: {'true' if recall else 'false'}\n")
    return f


def _env(v: Path, cache: Path, mode: str, recall: bool = True) -> dict:
    return {"MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache),
            "MEMORY_PLUGIN_CONFIG": str(_config(mode, recall)),
            **({"MEMORY_PLUGIN_EMBEDDING_MODEL": "off"} if mode == "lexical" else {})}


def _semantic_available() -> bool:
    try:
        from memory_plugin import semantic
        from memory_plugin.config import load_config

        return semantic.mode(load_config())[0] == "semantic"
    except Exception:  # noqa: BLE001 - no extra, no model: lexical only
        return False


def _embedded(cache: Path) -> bool:
    import sqlite3

    try:
        c = sqlite3.connect(f"file:{cache / 'index.sqlite'}?mode=ro", uri=True)
        done = c.execute("SELECT count(DISTINCT path) FROM chunks").fetchone()[0]
        total = c.execute("SELECT count(*) FROM notes WHERE private = 0 AND skipped = 0").fetchone()[0]
        return total > 0 and done >= total
    except Exception:  # noqa: BLE001 - no index, no chunks table
        return False


def _usable(v: Path, cache: Path) -> bool:
    from memory_plugin import index
    from memory_plugin.config import load_config

    try:
        index.open_index(load_config(vault=v, cache_dir=cache)).close()
        return True
    except Exception:  # noqa: BLE001 - missing, old schema, another vault's
        return False


def setup(n: int, semantic: bool, shared10k: Path | None) -> tuple[Path, Path, bool]:
    """(vault, cache, embedded) for size n: the cache is built (and embedded, for 1k) when missing."""
    if n == 10_000 and shared10k and (shared10k / "vault").is_dir() and _embedded(shared10k / "cache") \
            and _usable(shared10k / "vault", shared10k / "cache"):
        cache = OUT / "promptcache-10000-shared"
        if not (_embedded(cache) and _usable(shared10k / "vault", cache)):
            shutil.rmtree(cache, ignore_errors=True)
            shutil.copytree(shared10k / "cache", cache, symlinks=True)
        return shared10k / "vault", cache, True
    v = vault(n)
    cache = OUT / f"promptcache-{n}"
    env = {**os.environ, "MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    if not _usable(v, cache):  # none yet, or one an older version built (its schema)
        subprocess.run([EXE, "rebuild"], env={**env, "MEMORY_PLUGIN_EMBEDDING_MODEL": "off"}, check=True,
                       capture_output=True)
    if semantic and n <= 1000 and not _embedded(cache):
        subprocess.run([EXE, "sync"], env=env, check=True, capture_output=True)  # embeds what is pending
    return v, cache, _embedded(cache)


def prompts_for(v: Path, n: int) -> list[str]:
    titles = sorted(p.stem for p in v.rglob("*.md") if ".groundtruth" not in p.parts)
    return [f"what do we know about {t}? it came up with the {x}" for t, x in zip(random.Random(n).sample(titles, 5), EXTRA)] \
        + ORDINARY


def ran_retrieval(v: Path, cache: Path, prompts: list[str]) -> int:
    """How many of `prompts` get past the hook's bound (ITEM_RULE: specific words) to a retrieval."""
    from memory_plugin import index, prompt_hook
    from memory_plugin.config import load_config

    conn = index.open_index(load_config(vault=v, cache_dir=cache))
    try:
        count = 0
        for p in prompts:
            idf, unique = prompt_hook.prompt_idf(conn, p)
            count += prompt_hook.specific(idf, idf, unique)
        return count
    finally:
        conn.close()


def bench(v: Path, cache: Path, n: int, runs: int, mode: str) -> dict:
    env = _env(v, cache, mode)
    prompts = prompts_for(v, n)
    res: dict[str, list[float]] = {"new session": [], "same session": [], "long prompt": []}
    hook = [EXE, "hook", "user-prompt-submit"]
    for p in prompts:  # which prompts get an item (the timed runs below are the same prompts)
        r = subprocess.run(hook, input=json.dumps({"session_id": f"c{n}{mode}{os.getpid()}{hash(p)}", "prompt": p}),
                           capture_output=True, text=True, env={**os.environ, **env})
        res.setdefault("injecting", []).append(float(bool(r.stdout.strip())))
    for i in range(runs):
        p = prompts[i % len(prompts)]
        res["new session"].append(timed(hook, env=env, input=json.dumps({"session_id": f"n{n}{mode}{i}{os.getpid()}",
                                                                         "prompt": p, "cwd": str(v)}))[0])
        res["same session"].append(timed(hook, env=env, input=json.dumps({"session_id": f"s{n}{mode}{os.getpid()}",
                                                                          "prompt": p, "cwd": str(v)}))[0])
        res["long prompt"].append(timed(hook, env=env, input=json.dumps({
            "session_id": f"l{n}{mode}{os.getpid()}", "prompt": (p + " ") * (10_000 // len(p)), "cwd": str(v)}))[0])
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--embedded-10k", default="/work/bench10k",
                    help="an embedded 10k vault: DIR/vault and DIR/cache (copied, never written)")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    semantic = _semantic_available()
    shared = Path(a.embedded_10k) if a.embedded_10k else None
    rows: dict[tuple[str, int], dict | str] = {}
    floor: dict[int, list[float]] = {}
    ran: dict[int, int] = {}
    for n in sizes:
        v, cache, embedded = setup(n, semantic, shared)
        ran[n] = ran_retrieval(v, cache, prompts_for(v, n))
        rows[("lexical", n)] = bench(v, cache, n, a.runs, "lexical")
        if not semantic:
            rows[("semantic", n)] = "no semantic extra/model"
        elif not embedded:
            rows[("semantic", n)] = "not embedded (give --embedded-10k)"
        else:
            rows[("semantic", n)] = bench(v, cache, n, a.runs, "semantic")
        env = _env(v, cache, "lexical", recall=False)
        floor[n] = [timed([EXE, "hook", "user-prompt-submit"], env=env,
                          input=json.dumps({"session_id": f"f{i}", "prompt": ORDINARY[i % 5], "cwd": str(v)}))[0]
                    for i in range(a.runs)]
    bare = [timed([sys.executable, "-c", "pass"])[0] for _ in range(a.runs)]
    ms = lambda xs: f"{median(xs) * 1000:.0f} / {p95(xs) * 1000:.0f} ms"  # noqa: E731
    load = os.getloadavg()
    lines = ["## UserPromptSubmit hook (issue 13)", "", f"Machine: {machine()}; load average at the end "
             f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)", "",
             f"Command: `.venv/bin/python bench/bench_prompt.py --sizes {a.sizes} --runs {a.runs} --write` (the "
             f"hook as a whole process through the installed console script, JSON on stdin with a cwd; median / "
             f"p95 of {a.runs} runs per cell; prompts cycle through 5 questions naming generated notes and 5 "
             f"ordinary coding prompts; \"new session\": each run is the first prompt of a session (reads the "
             f"brief, detects the project, writes the session state), \"same session\": later prompts of one "
             f"session; the long prompt is 10,000 characters, cut to 4,000). In the same run: bare "
             f"`python -c pass` {ms(bare)}; the hook with recall off (capture only) "
             + ", ".join(f"{ms(floor[n])} at {n:,}" for n in sizes) + ".", "",
             "| mode | prompt | budget (median / p95) | " + " | ".join(f"{n:,} notes" for n in sizes) + " |",
             "|---|---|---|" + "---|" * len(sizes)]
    for m in ("lexical", "semantic"):
        for kind in ("new session", "same session", "long prompt"):
            cells = []
            for n in sizes:
                r = rows.get((m, n))
                cells.append(ms(r[kind]) if isinstance(r, dict) else f"not measured: {r}")
            lines.append(f"| {m} | {kind} | {BUDGETS[m]} | " + " | ".join(cells) + " |")
    lines += ["", "Of the 10 prompts, " + "; ".join(f"{ran[n]} ran a retrieval at {n:,}" for n in sizes)
              + " (the others end at the hook's bound: no note can share enough specific words with them); "
              "got an item: " + "; ".join(f"{m} {n:,}: {int(sum(r['injecting']))}" for (m, n), r in rows.items()
                                           if isinstance(r, dict)) + "."]
    publish("prompt-hook", lines, a.write)


if __name__ == "__main__":
    main()
