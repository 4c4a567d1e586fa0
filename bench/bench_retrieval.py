#!/usr/bin/env python3
"""Retrieval quality (issue 10) on every question set, each over its vault, as `memory-plugin eval`
prints it (hybrid, lexical only, semantic only, plain BM25), and the abstention figures.

    python3 bench/bench_retrieval.py [--write] [--only NAME ...] [--evaldata DIR] [--devdata DIR]

Sets: fixture (regression), dendron (../shared/eval/dendron, report only), the held-out sets of
bench/eval/*/ (vaults at EVALDATA/<set>/vault, laid out by bench/lay_evaldata.py; --evaldata, default
$MEMORY_PLUGIN_EVALDATA) and the development sets bench/dev/*/questions.yaml (the only ones constants
were set on; each vault at DEVDATA/<set>/vault when there, as its fetch.sh lays it (--devdata, default
$MEMORY_PLUGIN_DEVDATA), else EVALDATA/<set>/vault). A set whose vault is not laid out is not measured.
Each set gets its own cache dir under the bench dir, so the user's caches are never touched.
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
from common import EXE, OUT, ROOT, machine, write_section  # noqa: E402


def sets(evaldata: Path | None, devdata: Path | None) -> list[tuple[str, str, Path, Path | None]]:
    """(name, role, questions, vault or None when it is not laid out)."""
    def laid(base: Path | None, name: str) -> Path | None:
        return base / name / "vault" if base is not None and (base / name / "vault").is_dir() else None

    out = [("fixture", "regression", ROOT / "fixtures" / "eval" / "questions.yaml", ROOT / "fixtures" / "vault"),
           ("dendron", "report only", ROOT.parent / "shared" / "eval" / "dendron" / "questions.yaml",
            ROOT.parent / "shared" / "eval" / "dendron" / "vault")]
    for q in sorted((ROOT / "bench" / "eval").glob("*/questions.yaml")):
        out.append((q.parent.name, "held-out", q, laid(evaldata, q.parent.name)))
    for q in sorted((ROOT / "bench" / "dev").glob("*/questions.yaml")):
        name = q.parent.name
        out.append((f"{name} (dev)", "development: constants set here", q, laid(devdata, name) or laid(evaldata, name)))
    return out


def run(name: str, questions: Path, vault: Path, seed: Path | None) -> tuple[dict, str, float]:
    """One `eval --json` (timed), its markdown table rendered from the JSON. `seed`: an embedded
    cache dir of this vault to start from (copied, never written: a rebuild there carries its
    vectors over, so only notes changed since are embedded)."""
    cache = OUT / "retrieval" / name.split()[0]
    if seed is not None and seed.is_dir() and not cache.exists():
        cache.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(seed, cache, symlinks=True)
    args = [EXE, "--cache-dir", str(cache), "--vault", str(vault)]
    if seed is not None:  # embed what changed since the seed (eval itself never embeds; rebuild, not
        # sync, because a seed from an older schema needs one)
        subprocess.run(args + ["rebuild"], capture_output=True, text=True)
    t0 = time.perf_counter()
    r = subprocess.run(args + ["eval", str(questions), "--json"], capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"eval {name} failed: {r.stderr.strip()}")
    res = json.loads(r.stdout)
    from memory_plugin.search.evaluate import markdown

    return res, markdown(res["summary"]), secs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="update the retrieval section of bench/RESULTS.md")
    ap.add_argument("--only", nargs="*", help="only these sets")
    ap.add_argument("--seed-caches", type=Path, help="a folder of embedded cache dirs named by set "
                    "(fixture, dendron, <held-out>, til): each is copied as the set's starting cache")
    ap.add_argument("--evaldata", type=Path, default=os.environ.get("MEMORY_PLUGIN_EVALDATA"),
                    help="the folder bench/lay_evaldata.py laid the evaluation vaults in (EVALDATA/<set>/vault)")
    ap.add_argument("--devdata", type=Path, default=os.environ.get("MEMORY_PLUGIN_DEVDATA"),
                    help="a folder of dev vaults laid out by their fetch.sh (DEVDATA/<set>/vault), tried first")
    a = ap.parse_args()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "memory_plugin"], capture_output=True,
                           text=True).stdout.strip()
    parts = [f"Machine: {machine()}\n\nCommit: {commit}{' (with uncommitted changes)' if dirty else ''}\n\n"
             "Command: `.venv/bin/python bench/bench_retrieval.py --write`\n"]
    summary = ["| set | role | n | hybrid R@5 | hybrid MRR | lexical R@5 | semantic R@5 | BM25 R@5 | BM25 MRR | "
               "negatives answered with nothing (hybrid / lexical / BM25) | answerable kept (hybrid) | eval s |",
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    tables = []
    for name, role, questions, vault in sets(a.evaldata, a.devdata):
        if a.only and name.split()[0] not in a.only:
            continue
        if vault is None or not vault.is_dir():
            tables.append(f"### {name}\n\nnot measured: its vault is not laid out (bench/lay_evaldata.py, --evaldata)\n")
            continue
        seed = a.seed_caches / name.split()[0] if a.seed_caches else None
        res, text, secs = run(name, questions, vault, seed)
        mode = res.get("embedded", "semantic off: " + (res.get("notice") or "no semantic layer"))
        o = res["summary"]["overall"]
        neg = res["summary"].get("negative", {})
        nneg = neg.get("n", 0)

        def g(system, m, d=o):
            return f"{d[system][m]:.2f}" if system in d and m in d[system] else "–"

        def nothing(system):
            return f"{round(neg[system]['none'] * nneg)}/{nneg}" if system in neg and "none" in neg[system] else "–"

        summary.append(f"| {name} | {role} | {o['n']} | {g('query', 'r5')} | {g('query', 'mrr')} | {g('lexical', 'r5')} | "
                       f"{g('semantic', 'r5')} | {g('baseline', 'r5')} | {g('baseline', 'mrr')} | "
                       f"{nothing('query')} / {nothing('lexical')} / {nothing('baseline')} | {g('query', 'kept')} | {secs:.1f} |")
        tables.append(f"### {name} ({role})\n\n`{questions.relative_to(ROOT.parent) if ROOT.parent in questions.parents else questions}`"
                      f" over `{vault}` ({mode})\n\n" + text.strip() + "\n")
    text = "\n".join(parts) + "\n" + "\n".join(summary) + "\n\n" + "\n".join(tables)
    print(text)
    if a.write:
        write_section("retrieval", "## Retrieval quality (issue 10)\n\n" + text)


if __name__ == "__main__":
    main()
