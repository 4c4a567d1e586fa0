"""UserPromptSubmit hook benchmark (issue 13): the hook as a whole process at 1k and 10k notes,
lexical and semantic, median and p95, with a bare `python -c pass` and the hook with recall off
measured in the same run; plus a prompt of 10,000 characters (cut to 4,000).

    .venv/bin/python bench/bench_prompt.py [--sizes 1000,10000] [--runs 20] [--write]

Vaults: the generated vault of each size (seed 1, bench/common.vault), copied, with TOPICS added: five
notes on things a generated vault never mentions (a kubernetes autoscaler, a stripe webhook ...), each
linked to a generated note. A generated vault's own words are all common ones (most are in over half of
its notes), so a prompt made of them ends at the hook's bound, and one naming a thing no note has does
too (a word no note has cannot count towards an item); the topic notes give the "retrieval" prompts
words a note does have, so those run the whole retrieval and can get their note, as a question about a
real vault does. "ordinary" prompts ("run the tests") end at the bound here. Semantic rows need embedded
notes: the 1k cache is embedded here once and kept in $MEMORY_PLUGIN_BENCH_DIR (~2 min of CPU the first
time); at 10k the script starts from an embedded cache given by --embedded-10k (DIR/vault and
DIR/cache of the generated 10k vault, copied, never written; `sync` then embeds the five topic notes)
and skips the semantic 10k rows without one (embedding 10k notes takes ~17 min of CPU). "new
session" runs every prompt as the first of a session (it reads the brief and detects the project),
"same session" as later ones. Takes ~5 min on an idle 2-core machine once the 1k cache is embedded.
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

from common import EXE, LEXICAL, OUT, machine, median, p95, publish, timed, vault

# (title, body, prompt) of the notes added to the generated vault: three words no generated note has,
# in the note and in the prompt, so that the prompt passes the hook's bound in both modes and the
# retrieval runs in full (the prompt also names the generated note the topic note links to: common words).
TOPICS = [
    ("Kubernetes autoscaler", "The kubernetes autoscaler grows the nodepool when pods stay pending for two "
     "minutes, and shrinks it after ten idle ones.", "what do we know about the kubernetes autoscaler and its "
     "nodepool limits"),
    ("Stripe webhook", "Stripe webhook events are checked against the signing secret before the invoice "
     "handler runs; replays older than five minutes are refused.", "how do we check a stripe webhook "
     "signing secret before the invoice handler"),
    ("Grafana dashboard", "The grafana dashboard for latency shows the p95 panel per endpoint; alerts go to "
     "the oncall rota.", "where is the grafana dashboard latency panel and who gets the oncall alerts"),
    ("Terraform state", "Terraform state lives in a versioned bucket with a dynamodb lock table; never edit it "
     "by hand.", "what did we decide about terraform state, the versioned bucket and the dynamodb lock"),
    ("Sentry alert", "A sentry alert fires when the error rate of a release doubles; the triage rota mutes "
     "flaky ones.", "why did the sentry alert fire for the release and who does triage"),
]
# A note tied to code (the prompt hook's precise half, claude/prompt_cues.py): it cites a file's lines and
# a method and quotes an error message; each CODE_PROMPTS prompt names one of them (a message looked up
# by phrase, a file and line matched against the anchors, a symbol).
CODE_NOTE = ("Session token check", "`src/auth/session.py#L80-L95`, `SessionStore.refresh()`: a request whose "
             "headers lack the token fails with\n\n    KeyError: the session token is missing from the request "
             "headers\n\nRefresh the store before the handler reads it.")
CODE_PROMPTS = ["the login job dies with: KeyError: the session token is missing from the request headers",
                "what does src/auth/session.py:88 do before the handler runs?",
                "when is `SessionStore.refresh` called?"]
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
        from memory_plugin.semantic import vectors as semantic
        from memory_plugin.core.config import load_config

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
    from memory_plugin.index import store as index
    from memory_plugin.core.config import load_config

    try:
        index.open_index(load_config(vault=v, cache_dir=cache)).close()
        return True
    except Exception:  # noqa: BLE001 - missing, old schema, another vault's
        return False


def setup(n: int, semantic: bool, shared10k: Path | None) -> tuple[Path, Path, bool]:
    """(vault, cache, embedded) for size n: the generated vault copied with TOPICS added, and its cache:
    at 10k a copy of the shared embedded one when there is one, else built here (and embedded at 1k);
    `sync` then indexes (and, with the extra, embeds) the topic notes."""
    seed = None
    if n == 10_000 and shared10k and (shared10k / "vault").is_dir() and _embedded(shared10k / "cache") \
            and _usable(shared10k / "vault", shared10k / "cache"):
        src, seed = shared10k / "vault", shared10k / "cache"
    else:
        src = vault(n)
    v = OUT / f"vault-{n}-topics"
    add_topics(src, v, n)
    cache = OUT / f"promptcache-{n}-topics"
    env = {**os.environ, "MEMORY_PLUGIN_VAULT": str(v), "MEMORY_PLUGIN_CACHE_DIR": str(cache)}
    if seed and not _usable(v, cache):
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(seed, cache, symlinks=True)  # brought up to this version by the sync below
    if not _usable(v, cache):  # none yet, or one an older version built (its schema)
        subprocess.run([EXE, "rebuild"], env={**env, **LEXICAL}, check=True, capture_output=True)
    if semantic and (seed or n <= 1000):
        subprocess.run([EXE, "sync"], env=env, check=True, capture_output=True)  # embeds what is pending
    else:
        subprocess.run([EXE, "sync"], env={**env, **LEXICAL}, check=True, capture_output=True)
    return v, cache, _embedded(cache)


def generated_titles(v: Path) -> list[str]:
    return sorted(p.stem for p in v.rglob("*.md") if ".groundtruth" not in p.parts and p.parent.name != "Topics")


def add_topics(src: Path, dst: Path, n: int) -> None:
    """`dst` = a copy of the generated vault `src` (times kept, so a copied cache stays current) with
    TOPICS in dst/Topics, each linked to a generated note (the one prompts_for names with it)."""
    if not dst.is_dir():
        shutil.copytree(src, dst, symlinks=True)
    (dst / "Topics").mkdir(exist_ok=True)
    for (title, body, _), linked in zip(TOPICS, random.Random(n).sample(generated_titles(src), len(TOPICS))):
        f = dst / "Topics" / f"{title}.md"
        text = f"---\ntype: learning\n---\n# {title}\n\n{body} See [[{linked}]].\n"
        if not f.exists() or f.read_text() != text:
            f.write_text(text)
    f = dst / "Topics" / f"{CODE_NOTE[0]}.md"
    text = f"---\ntype: pitfall\n---\n# {CODE_NOTE[0]}\n\n{CODE_NOTE[1]}\n"
    if not f.exists() or f.read_text() != text:
        f.write_text(text)


def prompts_for(v: Path, n: int) -> dict[str, list[str]]:
    """{"retrieval": prompts that run the whole retrieval (each about a topic note, naming its linked
    generated note), "ordinary": coding prompts that end at the hook's bound}."""
    linked = random.Random(n).sample(generated_titles(v), len(TOPICS))
    return {"retrieval": [f"{q}? it came up while working on {t}" for (_, _, q), t in zip(TOPICS, linked)],
            "ordinary": ORDINARY}


def ran_retrieval(v: Path, cache: Path, prompts: list[str]) -> int:
    """How many of `prompts` get past the hook's bound (prompt_hook.worth_retrieving) to a retrieval."""
    from memory_plugin.index import store as index
    from memory_plugin.claude import prompt_hook
    from memory_plugin.core.config import load_config

    conn = index.open_index(load_config(vault=v, cache_dir=cache))
    try:
        return sum(prompt_hook.worth_retrieving(*prompt_hook.prompt_idf(conn, p)) for p in prompts)
    finally:
        conn.close()


KINDS = ("retrieval, new session", "retrieval, same session", "retrieval, long prompt", "names code, new session",
         "ordinary, new session")


def bench(v: Path, cache: Path, n: int, runs: int, mode: str) -> dict:
    env = _env(v, cache, mode)
    prompts = prompts_for(v, n)
    res: dict[str, list[float]] = {k: [] for k in KINDS}
    hook = [EXE, "hook", "user-prompt-submit"]
    for (title, _, _), p in zip(TOPICS, prompts["retrieval"]):  # which prompts get their note (as timed below)
        r = subprocess.run(hook, input=json.dumps({"session_id": f"c{n}{mode}{os.getpid()}{hash(p)}", "prompt": p,
                                                   "cwd": str(v)}),
                           capture_output=True, text=True, env={**os.environ, **env})
        res.setdefault("injecting", []).append(float(f"- {title} (" in r.stdout))
    for i, p in enumerate(CODE_PROMPTS):
        r = subprocess.run(hook, input=json.dumps({"session_id": f"k{n}{mode}{os.getpid()}{i}", "prompt": p,
                                                   "cwd": str(v)}), capture_output=True, text=True, env={**os.environ, **env})
        res.setdefault("code_injecting", []).append(float(f"- {CODE_NOTE[0]} (" in r.stdout))
    tag = f"{n}{mode}{os.getpid()}"
    for i in range(runs):
        p, o = prompts["retrieval"][i % len(prompts["retrieval"])], prompts["ordinary"][i % len(prompts["ordinary"])]
        c = CODE_PROMPTS[i % len(CODE_PROMPTS)]
        for kind, sid, text in (("retrieval, new session", f"n{tag}{i}", p), ("retrieval, same session", f"s{tag}", p),
                                ("retrieval, long prompt", f"l{tag}", (p + " ") * (10_000 // len(p))),
                                ("names code, new session", f"k{tag}{i}", c),
                                ("ordinary, new session", f"o{tag}{i}", o)):
            res[kind].append(timed(hook, env=env, input=json.dumps({"session_id": sid, "prompt": text,
                                                                     "cwd": str(v)}))[0])
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--embedded-10k", type=Path,
                    help="an embedded 10k vault: DIR/vault and DIR/cache (copied, never written)")
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    semantic = _semantic_available()
    shared = a.embedded_10k
    rows: dict[tuple[str, int], dict | str] = {}
    floor: dict[int, list[float]] = {}
    ran: dict[int, int] = {}
    for n in sizes:
        v, cache, embedded = setup(n, semantic, shared)
        ran[n] = ran_retrieval(v, cache, prompts_for(v, n)["retrieval"] + ORDINARY)
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
             f"p95 of {a.runs} runs per cell; \"retrieval\" prompts cycle through 5 questions about topic notes "
             f"added to the generated vault (TOPICS: they run the whole retrieval), \"ordinary\" ones through 5 "
             f"coding prompts (they end at the hook's bound); \"new session\": each run is the first prompt of a "
             f"session (reads the brief, detects the project, writes the session state), \"same session\": later "
             f"prompts of one session; the long prompt is 10,000 characters, cut to 4,000; \"names code\" prompts "
             f"cycle through 3 naming an error message, a file and line, a method a note cites or quotes). "
             f"In the same run: bare "
             f"`python -c pass` {ms(bare)}; the hook with recall off (capture only) "
             + ", ".join(f"{ms(floor[n])} at {n:,}" for n in sizes) + ".", "",
             "| mode | prompt | budget (median / p95) | " + " | ".join(f"{n:,} notes" for n in sizes) + " |",
             "|---|---|---|" + "---|" * len(sizes)]
    for m in ("lexical", "semantic"):
        for kind in KINDS:
            cells = []
            for n in sizes:
                r = rows.get((m, n))
                cells.append(ms(r[kind]) if isinstance(r, dict) else f"not measured: {r}")
            lines.append(f"| {m} | {kind} | {BUDGETS[m]} | " + " | ".join(cells) + " |")
    lines += ["", "Of the 10 prompts, " + "; ".join(f"{ran[n]} ran a retrieval at {n:,}" for n in sizes)
              + " (the others end at the hook's bound: no note can share enough specific words with them); "
              "retrieval prompts that got their topic note injected (of 5): "
              + "; ".join(f"{m} {n:,}: {int(sum(r['injecting']))}" for (m, n), r in rows.items() if isinstance(r, dict))
              + f"; prompts naming code that got the note citing it (of {len(CODE_PROMPTS)}): "
              + "; ".join(f"{m} {n:,}: {int(sum(r['code_injecting']))}"
                          for (m, n), r in rows.items() if isinstance(r, dict))
              + "."]
    publish("prompt-hook", lines, a.write)


if __name__ == "__main__":
    main()
