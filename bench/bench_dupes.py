#!/usr/bin/env python3
"""Precision and recall of the duplicate judge on a labelled pair set (bench/eval/duplicates.yaml,
written blind by another session), through the paths users take:

- a pair of existing notes (`a`, `b`) is predicted a duplicate when `reorganize` lists it (its
  candidate pairing and `dupes.judge`);
- a new memory (`new`) against `a` is predicted a duplicate when `remember` would refuse it as `a`:
  the same name up to case and Unicode form, or `a` among the near-duplicates it finds.

    python3 bench/bench_dupes.py [--pairs bench/eval/duplicates.yaml] [-v] [--write]
"""
from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def dendron_vault() -> Path:
    for base in (ROOT.parent, ROOT.parent.parent):
        p = base / "shared" / "eval" / "dendron" / "vault"
        if p.is_dir():
            return p
    raise SystemExit("the dendron vault (../shared/eval/dendron/vault) is missing")


def build(vault: Path, work: Path):
    from memory_plugin import index as I
    from memory_plugin.config import load_config

    cfg = load_config(vault=vault, cache_dir=work / "cache")
    I.rebuild(cfg)
    return cfg, sqlite3.connect(work / "cache" / "index.sqlite")


def predictions(cfg, conn, pairs: list[dict]) -> dict[str, tuple[bool, list[str]]]:
    from memory_plugin import dupes
    from memory_plugin import memory as M
    from memory_plugin import reorganize as R
    from memory_plugin import vaultstyle

    out = {}
    listed = {}
    if any("b" in p for p in pairs):
        for p in R._duplicates(R._rows(conn, "SELECT n.path, n.title, n.display_title, n.type, n.status, n.summary, "
                                             "n.props, n.created, n.hash, n.folder, n.project, n.hub, f.body FROM notes n "
                                             "JOIN fts f ON f.rowid = n.id WHERE n.private = 0 AND n.skipped = 0")):
            listed[frozenset(p["notes"])] = p["reasons"]
    for p in pairs:
        if "b" in p:
            key = frozenset((p["a"], p["b"]))
            out[p["id"]] = (key in listed, listed.get(key, []))
            continue
        new = p["new"]
        project = vaultstyle.project_value(conn, str(new.get("project") or "")) if new.get("project") else None
        name = M.safe_filename(str(new["title"]))
        if p["a"] in M.same_name(conn, name):
            out[p["id"]] = (True, ["same name"])
            continue
        me = dupes.Doc(str(new["title"]), new.get("type"), project, str(new.get("summary") or ""),
                       str(new.get("body") or ""))
        found = {d["path"]: d["reasons"] for d in M.find_similar(conn, me, limit=1000)}
        out[p["id"]] = (p["a"] in found, found.get(p["a"], []))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default=str(ROOT / "bench" / "eval" / "duplicates.yaml"))
    ap.add_argument("-v", "--verbose", action="store_true", help="list every wrong verdict")
    ap.add_argument("--write", action="store_true", help="update the duplicates section of bench/RESULTS.md")
    a = ap.parse_args()
    data = yaml.safe_load(Path(a.pairs).read_text(encoding="utf-8"))
    pairs = data["pairs"]
    vaults = {"fixture": ROOT / "fixtures" / "vault", "dendron": dendron_vault()}
    preds: dict[str, tuple[bool, list[str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, src in vaults.items():
            mine = [p for p in pairs if p.get("vault", "fixture") == name]
            if not mine:
                continue
            work = Path(tmp) / name
            shutil.copytree(src, work / "vault")
            cfg, conn = build(work / "vault", work)
            preds.update(predictions(cfg, conn, mine))
            conn.close()
    tp = sum(1 for p in pairs if p["duplicate"] and preds[p["id"]][0])
    fp = sum(1 for p in pairs if not p["duplicate"] and preds[p["id"]][0])
    fn = sum(1 for p in pairs if p["duplicate"] and not preds[p["id"]][0])
    tn = len(pairs) - tp - fp - fn
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    lines = [f"Set: `{Path(a.pairs).relative_to(ROOT) if Path(a.pairs).is_relative_to(ROOT) else a.pairs}`, "
             f"{len(pairs)} pairs ({sum(p['duplicate'] for p in pairs)} duplicates); "
             f"vaults: {dict(Counter(p.get('vault', 'fixture') for p in pairs))}", "",
             "| precision | recall | TP | FP | FN | TN |", "|---|---|---|---|---|---|",
             f"| {prec:.3f} | {rec:.3f} | {tp} | {fp} | {fn} | {tn} |", "",
             "| category | pairs | judged right |", "|---|---|---|"]
    for cat in sorted({p.get("category", "?") for p in pairs}):
        group = [p for p in pairs if p.get("category", "?") == cat]
        right = sum(1 for p in group if preds[p["id"]][0] == p["duplicate"])
        lines.append(f"| {cat} | {len(group)} | {right} |")
    wrong = [p for p in pairs if preds[p["id"]][0] != p["duplicate"]]
    if wrong:
        lines += ["", "Wrong verdicts:", ""]
        for p in wrong:
            other = p.get("b") or f"new “{p['new']['title']}”"
            lines.append(f"- {p['id']} ({p.get('category')}, labelled {'duplicate' if p['duplicate'] else 'distinct'}): "
                         f"{p['a']} vs {other}; {'; '.join(preds[p['id']][1]) or 'not found'}")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.verbose:
        for p in pairs:
            print(p["id"], p["duplicate"], preds[p["id"]])
    if a.write:
        sys.path.insert(0, str(ROOT / "bench"))
        from common import machine, write_section

        write_section("duplicates", "## Duplicate judge (issue 12)\n\n"
                                    f"Machine: {machine()}\n\nCommand: `.venv/bin/python bench/bench_dupes.py --write`\n\n"
                      + text)


if __name__ == "__main__":
    main()
