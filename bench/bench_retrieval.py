#!/usr/bin/env python3
"""Retrieval quality (issue 10) on every question set, each over its vault, as `memory-plugin eval`
prints it (hybrid, lexical only, semantic only, plain BM25), and the abstention figures.

    python3 bench/bench_retrieval.py [--write] [--detail] [--only NAME ...] [--evaldata DIR] [--devdata DIR]

Sets: fixture (regression), dendron (../shared/eval/dendron, report only), the held-out sets of
bench/eval/*/ (vaults at EVALDATA/<set>/vault, laid out by bench/lay_evaldata.py; --evaldata, default
$MEMORY_PLUGIN_EVALDATA) and the development sets bench/dev/*/questions.yaml (the only ones constants
were set on; each vault at DEVDATA/<set>/vault when there, as its fetch.sh lays it (--devdata, default
$MEMORY_PLUGIN_DEVDATA), else EVALDATA/<set>/vault). A set whose vault is not laid out is not measured.
--write records one summary row per set in bench/RESULTS.md; --detail prints each set's table by
question kind as well (stdout only).
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


HEADING = "## Retrieval quality (issue 10)"
LEGEND = ("hybrid: the product (lexical + semantic + graph, fused, with the rules); lexical: the same without semantic; "
          "semantic: the semantic retriever alone; BM25: plain FTS5 BM25, OR of the words. R@5: share of the expected "
          "notes in the top 5; MRR: mean reciprocal rank of the first expected note. `--detail` prints each set's "
          "table by question kind (R@1, R@5, MRR, negatives per retriever); `memory-plugin eval QUESTIONS --vault V` "
          "prints the same table for one set.")


def summary_row(name: str, role: str, summary: dict, secs: float) -> str:
    """One set's row of the summary table, from the `summary` of `eval --json`."""
    o = summary["overall"]
    neg = summary.get("negative", {})
    nneg = neg.get("n", 0)

    def g(system, m):
        return f"{o[system][m]:.2f}" if system in o and m in o[system] else "–"

    def nothing(system):
        return f"{round(neg[system]['none'] * nneg)}/{nneg}" if system in neg and "none" in neg[system] else "–"

    return (f"| {name} | {role} | {o['n']} | {g('query', 'r5')} | {g('query', 'mrr')} | {g('lexical', 'r5')} | "
            f"{g('semantic', 'r5')} | {g('baseline', 'r5')} | {g('baseline', 'mrr')} | "
            f"{nothing('query')} / {nothing('lexical')} / {nothing('baseline')} | {g('query', 'kept')} | {secs:.1f} |")


def section(machine_line: str, commit: str, measured: list[tuple[str, str, dict, float]],
            missing: list[str]) -> str:
    """The block written to RESULTS.md: one summary row per set, nothing per kind. RESULTS.md keeps
    every benchmark's current figure under 40 KB, and the per-kind tables of ~25 sets alone are ~39 KB;
    they are printed with --detail instead. `measured`: (name, role, eval summary, eval seconds);
    `missing`: sets whose vault is not laid out."""
    lines = [HEADING, "", f"Machine: {machine_line}", "", f"Commit: {commit}", "",
             "Command: `.venv/bin/python bench/bench_retrieval.py --write`", "",
             "| set | role | n | hybrid R@5 | hybrid MRR | lexical R@5 | semantic R@5 | BM25 R@5 | BM25 MRR | "
             "negatives answered with nothing (hybrid / lexical / BM25) | answerable kept (hybrid) | eval s |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    lines += [summary_row(*m) for m in measured]
    if missing:
        lines += ["", "Not measured, their vault not laid out (`bench/lay_evaldata.py`, --evaldata): "
                  + ", ".join(missing) + "."]
    lines += ["", LEGEND]
    return "\n".join(lines) + "\n"


def detail(name: str, role: str, questions: str, vault: str, mode: str, table: str) -> str:
    """One set's table by question kind, for stdout only (it names the vault's folder on this machine)."""
    return f"### {name} ({role})\n\n`{questions}` over `{vault}` ({mode})\n\n" + table.strip() + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="update the retrieval section of bench/RESULTS.md")
    ap.add_argument("--detail", action="store_true", help="also print each set's table by question kind")
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
    measured, missing, tables = [], [], []
    for name, role, questions, vault in sets(a.evaldata, a.devdata):
        if a.only and name.split()[0] not in a.only:
            continue
        if vault is None or not vault.is_dir():
            missing.append(name)
            continue
        seed = a.seed_caches / name.split()[0] if a.seed_caches else None
        res, table, secs = run(name, questions, vault, seed)
        measured.append((name, role, res["summary"], secs))
        mode = res.get("embedded", "semantic off: " + (res.get("notice") or "no semantic layer"))
        rel = questions.relative_to(ROOT.parent) if ROOT.parent in questions.parents else questions
        tables.append(detail(name, role, str(rel), str(vault), mode, table))
    text = section(machine(), commit + (" (with uncommitted changes)" if dirty else ""), measured, missing)
    print(text)
    if a.detail:
        print("\n".join(tables))
    if a.write:
        write_section("retrieval", text)


if __name__ == "__main__":
    main()
