#!/usr/bin/env python3
"""Precision and recall of the duplicate judge on a labelled pair set (bench/eval/duplicates.yaml,
written blind: before the judge ran on its notes), through the paths users take:

- a pair of existing notes (`a`, `b`) is predicted a duplicate when `reorganize` lists it (its
  candidate pairing and `dupes.judge`);
- a new memory (`new`) against `a` is predicted a duplicate when `remember` would refuse it as `a`:
  the same name up to case and Unicode form, or `a` among the near-duplicates it finds.

In semantic mode (`--mode semantic`, or `both` for the two side by side) each vault is embedded
with the default model first (`--seed-cache NAME=DIR` starts from an embedded cache of that vault,
copied: only notes whose chunks changed are embedded again), and the judge is `dupes.combine`.
`--dump FILE` writes each pair's lexical verdict and note-vector cosine (for tuning on DEV sets only).

    python3 bench/bench_dupes.py [--pairs bench/eval/duplicates.yaml] [--mode lexical|semantic|both]
                                 [--evaldata DIR] [--til-vault DIR] [-v] [--write]

A pair set names its vaults: fixture, devvault, dendron (../shared/eval/dendron/vault), a set laid out
by bench/lay_evaldata.py under --evaldata (default $MEMORY_PLUGIN_EVALDATA), or a path relative to the
repository; til may also be a folder of its own (--til-vault, as bench/dev/til/fetch.sh lays it).
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


MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def vault_path(name: str, evaldata: Path | None = None, til: Path | None = None) -> Path:
    """A pair set's `vault:` name: fixture, devvault, dendron, a set under `evaldata` (til: `til` when
    given), or a path relative to the repo."""
    if name == "fixture":
        return ROOT / "fixtures" / "vault"
    if name == "devvault":
        return ROOT / "fixtures" / "devvault"
    if name == "dendron":
        return dendron_vault()
    if name == "til" and til is not None:
        if not til.is_dir():
            raise SystemExit(f"the til dev vault is missing: bench/dev/til/fetch.sh {til}")
        return til
    if evaldata is not None and (evaldata / name / "vault").is_dir():  # laid out by bench/lay_evaldata.py
        return evaldata / name / "vault"
    p = ROOT / name
    if not p.is_dir():
        raise SystemExit(f"vault `{name}` not found: lay it out with bench/lay_evaldata.py and pass --evaldata "
                         f"(or set MEMORY_PLUGIN_EVALDATA)")
    return p


def build(vault: Path, work: Path, semantic: bool = False, seed: Path | None = None):
    import os

    from memory_plugin.index import store as I
    from memory_plugin.core.config import load_config

    os.environ["MEMORY_PLUGIN_EMBEDDING_MODEL"] = MODEL if semantic else "off"
    if semantic and seed is not None and not (work / "cache").exists():
        shutil.copytree(seed, work / "cache", symlinks=True)
    cfg = load_config(vault=vault, cache_dir=work / "cache")
    I.rebuild(cfg)
    if semantic:
        from memory_plugin.semantic import vectors as S

        S.embed_pending(cfg, lock_timeout=600)
    return cfg, sqlite3.connect(work / "cache" / "index.sqlite")


def raw_scores(cfg, conn, p: dict) -> dict:
    """The pair judged directly (no candidate search): lexical verdict, cosine, the rule's flags."""
    from memory_plugin.memory import dupes, dupes_sem
    from memory_plugin.memory import write as M
    from memory_plugin.memory import vaultstyle

    def doc(path):
        r = conn.execute("SELECT n.title, n.display_title, n.type, n.project, n.summary, f.body, n.hash "
                         "FROM notes n JOIN fts f ON f.rowid = n.id WHERE n.path = ?", (path,)).fetchone()
        if not r:
            return None
        return dupes.Doc(r[0], r[2], dupes.canon_project(r[3], names), r[4] or "", r[5] or "",
                         (r[1],) if r[1] != r[0] else (), path, r[6])

    names = dupes.project_names(conn)

    a = doc(p["a"])
    if "b" in p:
        b = doc(p["b"])
        idf = dupes.Idf.from_docs(dupes.Doc(t, ty, pr, s or "", bd or "") for t, ty, pr, s, bd in conn.execute(
            "SELECT n.title, n.type, n.project, n.summary, f.body FROM notes n JOIN fts f ON f.rowid = n.id "
            "WHERE n.private = 0 AND n.skipped = 0"))
    else:
        new = p["new"]
        project = vaultstyle.project_value(conn, str(new.get("project") or "")) if new.get("project") else None
        b = dupes.Doc(str(new["title"]), new.get("type"), dupes.canon_project(project, names),
                      str(new.get("summary") or ""), str(new.get("body") or ""))
        idf = dupes.Idf.from_index(conn)
    if a is None or b is None:
        return {"missing": True}
    v = dupes.judge(b, a, idf, newer=True) if "new" in p else dupes.judge(a, b, idf)
    out = {"lex": v.duplicate, "score": v.score, "text": v.text, "types_differ": v.types_differ, "successor": v.successor,
           "cross_project": v.cross_project, "tiny": v.tiny, "parent": v.parent, "cos": None}
    if dupes_sem.active(cfg, conn):
        va = dupes_sem.stored(conn, [p["a"]]).get(p["a"])
        vb = dupes_sem.embed_doc(cfg, b) if "new" in p else dupes_sem.stored(conn, [p["b"]]).get(p["b"])
        if va is not None and vb is not None:
            out["cos"] = round(float(va @ vb), 4)
    return out


def predictions(cfg, conn, pairs: list[dict], semantic: bool = False) -> dict[str, tuple[bool, list[str]]]:
    from memory_plugin.memory import dupes
    from memory_plugin.memory import write as M
    from memory_plugin.memory import reorganize as R
    from memory_plugin.memory import vaultstyle

    out = {}
    listed = {}
    if any("b" in p for p in pairs):
        for p in R._duplicates(R._rows(conn, "SELECT n.path, n.title, n.display_title, n.type, n.status, n.summary, "
                                             "n.props, n.created, n.hash, n.folder, n.project, n.hub, f.body FROM notes n "
                                             "JOIN fts f ON f.rowid = n.id WHERE n.private = 0 AND n.skipped = 0"),
                               cfg if semantic else None, conn):
            listed[frozenset(p["notes"])] = p["reasons"]
    for p in pairs:
        if "b" in p:
            key = frozenset((p["a"], p["b"]))
            out[p["id"]] = (key in listed, listed.get(key, []))
            continue
        new = p["new"]
        project = vaultstyle.project_value(conn, str(new.get("project") or "")) if new.get("project") else None
        try:
            name = M.safe_filename(str(new["title"]))
        except Exception:  # a title remember refuses as a file name (a `/` in it): the judge still reads it
            name = None
        if name is not None and p["a"] in M.same_name(conn, name):
            out[p["id"]] = (True, ["same name"])
            continue
        me = dupes.Doc(str(new["title"]), new.get("type"), project, str(new.get("summary") or ""),
                       str(new.get("body") or ""))
        found = {d["path"]: d["reasons"] for d in M.find_similar(conn, me, limit=1000,
                                                                  cfg=cfg if semantic else None)}
        out[p["id"]] = (p["a"] in found, found.get(p["a"], []))
    return out


def report(pairs: list[dict], preds: dict, title: str) -> list[str]:
    tp = sum(1 for p in pairs if p["duplicate"] and preds[p["id"]][0])
    fp = sum(1 for p in pairs if not p["duplicate"] and preds[p["id"]][0])
    fn = sum(1 for p in pairs if p["duplicate"] and not preds[p["id"]][0])
    tn = len(pairs) - tp - fp - fn
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    lines = [f"**{title}**", "", "| precision | recall | TP | FP | FN | TN |", "|---|---|---|---|---|---|",
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
    return lines + [""]


def main() -> None:
    import json
    import os

    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default=str(ROOT / "bench" / "eval" / "duplicates.yaml"))
    ap.add_argument("--mode", choices=("lexical", "semantic", "both"), default="lexical")
    ap.add_argument("--seed-cache", action="append", default=[], metavar="VAULT=DIR",
                    help="an embedded cache of that vault to start from (copied, never written)")
    ap.add_argument("--dump", help="write each pair's lexical verdict and cosine to this JSON file")
    ap.add_argument("--section", default="duplicates", help="the RESULTS.md section --write replaces")
    ap.add_argument("--evaldata", type=Path, default=os.environ.get("MEMORY_PLUGIN_EVALDATA"),
                    help="the folder bench/lay_evaldata.py laid the evaluation vaults in")
    ap.add_argument("--til-vault", type=Path, help="the til dev vault, when not under --evaldata")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every wrong verdict")
    ap.add_argument("--write", action="store_true", help="update the duplicates section of bench/RESULTS.md")
    a = ap.parse_args()
    seeds = dict(s.split("=", 1) for s in a.seed_cache)
    data = yaml.safe_load(Path(a.pairs).read_text(encoding="utf-8"))
    pairs = data["pairs"]
    modes = ["lexical", "semantic"] if a.mode == "both" else [a.mode]
    if "semantic" in modes:
        from memory_plugin.semantic import models

        if not os.environ.get("MEMORY_PLUGIN_MODELS_DIR") and models._package_zip() is not None:
            os.environ["MEMORY_PLUGIN_MODELS_DIR"] = tempfile.mkdtemp(prefix="bench-dupes-models-")
            models.extract_package()
    results: dict[str, dict] = {}
    dump: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted({p.get("vault", "fixture") for p in pairs}):
            mine = [p for p in pairs if p.get("vault", "fixture") == name]
            for mode in modes:
                work = Path(tmp) / mode / name.replace("/", "_")
                shutil.copytree(vault_path(name, a.evaldata, a.til_vault), work / "vault", symlinks=True)
                seed = Path(seeds[name]) if name in seeds else None
                cfg, conn = build(work / "vault", work, mode == "semantic", seed)
                results.setdefault(mode, {}).update(predictions(cfg, conn, mine, mode == "semantic"))
                if a.dump:
                    for p in mine:
                        dump.setdefault(p["id"], {"label": p["duplicate"], "category": p.get("category"),
                                                  "vault": name})[mode] = {
                            "pred": results[mode][p["id"]][0], **raw_scores(cfg, conn, p)}
                conn.close()
    pp = Path(a.pairs).resolve()
    # a set outside the repository is named by its file name: its folder is one of this machine
    rel = pp.relative_to(ROOT) if pp.is_relative_to(ROOT) else Path(pp.name)
    lines = [f"Set: `{rel}`, {len(pairs)} pairs ({sum(p['duplicate'] for p in pairs)} duplicates); "
             f"vaults: {dict(Counter(p.get('vault', 'fixture') for p in pairs))}", ""]
    for mode in modes:
        lines += report(pairs, results[mode], f"{mode} mode" + (
            f" (`dupes.combine`, {MODEL})" if mode == "semantic" else " (the lexical judge alone)"))
    text = "\n".join(lines) + "\n"
    print(text)
    if a.dump:
        Path(a.dump).write_text(json.dumps(dump, indent=1), encoding="utf-8")
    if a.verbose:
        for p in pairs:
            print(p["id"], p["duplicate"], {m: results[m][p["id"]] for m in modes})
    if a.write:
        sys.path.insert(0, str(ROOT / "bench"))
        from common import load_avg, machine, write_section

        commit = os.popen(f"git -C {ROOT} rev-parse --short HEAD").read().strip()
        title = "## Duplicate judge (issue 12)" if a.section == "duplicates" else f"## Duplicate judge, `{rel}` (issue 12)"
        write_section(a.section, f"{title}\n\n"
                                 f"Machine: {machine()}; load {load_avg()}; commit {commit}\n\n"
                                 f"Command: `.venv/bin/python bench/bench_dupes.py --mode {a.mode}"
                                 + (f" --pairs {rel}" if str(rel) != "bench/eval/duplicates.yaml" else "")
                                 + (f" --section {a.section}" if a.section != "duplicates" else "")
                                 + " --write`\n\n"
                      + text)


if __name__ == "__main__":
    main()
