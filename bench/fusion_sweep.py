#!/usr/bin/env python3
"""Session 7 (s7-fusion): the hybrid fusion variants of bench/eval/PROTOCOL.md, measured in one process
on the DEVELOPMENT sets (and the fixture as a regression floor), each index opened once and each
question embedded once (semantic.search memoised), so a sweep does not reload the model per set.

    MEMORY_PLUGIN_BENCH_DIR=/work/bench-fusion .venv/bin/python bench/fusion_sweep.py \
        [--seed-caches /work/caches] [--sets til logseq ...] [--variants H0 H1 ...] [--out DIR]

Each set's index is a copy of its seed cache (never written) under $MEMORY_PLUGIN_BENCH_DIR/sweep/<set>.
Only development sets and the fixture are allowed here: report sets are run once, by
bench/bench_retrieval.py, at a frozen commit.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV = ("til", "silverbullet", "logseq", "interlock-kb", "quartz-docs", "mdbook-guide", "dataview-docs")
EVALDATA = Path(os.environ.get("MEMORY_PLUGIN_EVALDATA", "/work/evaldata"))
REPORT = {"dendron", "foam-docs", "kepano-vault", "mkdocs-material", "tasks-docs", "sourcegraph-handbook", "dnd-srd"}


def set_paths(name: str) -> tuple[Path, Path]:
    if name == "dendron":
        return ROOT.parent / "shared" / "eval" / "dendron" / "questions.yaml", ROOT.parent / "shared" / "eval" / "dendron" / "vault"
    if name in REPORT:
        return ROOT / "bench" / "eval" / name / "questions.yaml", EVALDATA / name / "vault"
    if name == "fixture":
        return ROOT / "fixtures" / "eval" / "questions.yaml", ROOT / "fixtures" / "vault"
    return ROOT / "bench" / "dev" / name / "questions.yaml", EVALDATA / name / "vault"


# ---------------------------------------------------------------- the variants (PROTOCOL.md, session 7)

def _scaled(cands, name):
    vals = [c.raw[name] for c in cands.values() if name in c.raw]
    if not vals:
        return {}
    lo, hi = min(vals), max(vals)
    return {c.path: ((c.raw[name] - lo) / (hi - lo) if hi > lo else 1.0) for c in cands.values() if name in c.raw}


def _words(cands, R, share=None):
    lex, forms = _scaled(cands, "lexical"), _scaled(cands, "forms")
    wl, wf = R.LIST_WEIGHT["lexical"], R.LIST_WEIGHT["forms"]
    return {p: (wl * lex.get(p, 0.0) + wf * forms.get(p, 0.0)) * (1.0 if share is None else share.get(p, 0.0))
            for p in set(lex) | set(forms)}


_SHARE: dict = {"matched": {}, "weights": {}}  # what the current question's lexical retrievers matched (H5)


def record_matches(R):
    """Wrap retrieve.lexical and idf_weights so that H5 can read, per candidate, the share of the
    question's idf mass its words hold, as query computes `cover` (product code untouched)."""
    lexical, idf_weights = R.lexical, R.idf_weights

    def lex(conn, content, type_, forms=False, top=None):
        hits = lexical(conn, content, type_, forms=forms, top=top)
        if not forms:
            _SHARE["matched"], _SHARE["weights"] = {}, {}
        for h in hits:
            _SHARE["matched"].setdefault(h[0], set()).update(h[2])
        return hits

    def idf(conn, content, n_notes):
        out = idf_weights(conn, content, n_notes)
        _SHARE["weights"] = out
        return out

    R.lexical, R.idf_weights = lex, idf


def current_share() -> dict:
    w = _SHARE["weights"]
    total = sum(i for i, _ in w.values())
    if not total:
        return {}
    return {p: sum(w[x][0] for x in ws if x in w) / total for p, ws in _SHARE["matched"].items()}


def make_variants(R):
    orig = R.fuse

    def graph_w(semantic):
        return R.LIST_WEIGHT["graph" if semantic else "graph_lexical"]

    def h0(cands, method=None, semantic=True, share=None):
        orig(cands, None, semantic)

    def h1(cands, method=None, semantic=True, share=None):
        orig(cands, "rrf", semantic)

    def h2(cands, method=None, semantic=True, share=None):
        words = _words(cands, R)
        wrank = {p: i for i, p in enumerate(sorted(words, key=lambda p: (-words[p], p)), 1)}
        w = {"semantic": R.LIST_WEIGHT["semantic"], "names": R.LIST_WEIGHT["names"], "graph": graph_w(semantic)}
        for c in cands.values():
            s = 1.0 / (R.RRF_K + wrank[c.path]) if c.path in wrank else 0.0
            s += sum(w[n] / (R.RRF_K + r) for n, r in c.ranks.items() if n in w)
            c.fused = s * R.RRF_K

    def h4(cands, method=None, semantic=True, share=None, graph=True):
        words = _words(cands, R)
        wrank = {p: i for i, p in enumerate(sorted(words, key=lambda p: (-words[p], p)), 1)}
        one = R.RRF_K / (R.RRF_K + 1)  # a rank-1 hit's RRF value (times RRF_K)
        for c in cands.values():
            s = 1.0 / (R.RRF_K + wrank[c.path]) if c.path in wrank else 0.0
            if "semantic" in c.ranks:
                s += R.LIST_WEIGHT["semantic"] / (R.RRF_K + c.ranks["semantic"])
            s *= R.RRF_K
            s += one * (R.LIST_WEIGHT["names"] * c.raw.get("names", 0.0) + graph * graph_w(semantic) * c.raw.get("graph", 0.0))
            c.fused = s

    def h5(cands, method=None, semantic=True, share=None):
        words = _words(cands, R, current_share())
        sem = _scaled(cands, "semantic")
        for c in cands.values():
            c.fused = (words.get(c.path, 0.0) + R.LIST_WEIGHT["semantic"] * sem.get(c.path, 0.0)
                       + R.LIST_WEIGHT["names"] * c.raw.get("names", 0.0) + graph_w(semantic) * c.raw.get("graph", 0.0))

    def h6(cands, method=None, semantic=True, share=None):
        def dbsf(name):
            vals = [c.raw[name] for c in cands.values() if name in c.raw]
            if not vals:
                return {}
            mu = sum(vals) / len(vals)
            sd = (sum((v - mu) ** 2 for v in vals) / len(vals)) ** 0.5
            if sd == 0:
                return {c.path: 1.0 for c in cands.values() if name in c.raw}
            return {c.path: min(1.0, max(0.0, (c.raw[name] - mu + 3 * sd) / (6 * sd))) for c in cands.values() if name in c.raw}
        sc = {n: dbsf(n) for n in ("lexical", "forms", "semantic")}
        for c in cands.values():
            c.fused = (sum(R.LIST_WEIGHT[n] * sc[n].get(c.path, 0.0) for n in sc)
                       + R.LIST_WEIGHT["names"] * c.raw.get("names", 0.0) + graph_w(semantic) * c.raw.get("graph", 0.0))

    def h3(combine):
        def f(cands, method=None, semantic=True, share=None):
            words = _words(cands, R)
            sem = _scaled(cands, "semantic")
            for c in cands.values():
                wd = combine(words.get(c.path, 0.0), c.raw.get("names", 0.0))
                c.fused = wd + R.LIST_WEIGHT["semantic"] * sem.get(c.path, 0.0) + graph_w(semantic) * c.raw.get("graph", 0.0)
        return f

    return {
        "H0": h0, "H1": h1, "H2": h2,
        "H3a": h3(lambda w, n: max(w, n)),
        "H3b": h3(lambda w, n: (w + n) / 2),
        "H4": h4, "H5": h5, "H6": h6,
        "H4ng": lambda cands, method=None, semantic=True, share=None: h4(cands, method, semantic, share, graph=False),
    }


# ---------------------------------------------------------------- running

def memoise_semantic():
    from memory_plugin.semantic import vectors as semantic

    real = semantic.search
    memo: dict = {}

    def search(cfg, conn, text, k=50, stats=None):
        key = (str(cfg.vault), text, k)
        if key not in memo:
            st: dict = {}
            memo[key] = (real(cfg, conn, text, k=k, stats=st), st)
        hits, st = memo[key]
        if stats is not None:
            stats.update(st)
        return list(hits)

    semantic.search = search


LEX_ANCHOR = {"L0": (1, 2), "L1": (1, 0), "L2": (3, 2), "L3": (5, 0)}  # lexical mode: (top, slack)


def patch_lexical_anchor(Q, top_slack, no_abstain=False):
    """query(semantic=False) with ANCHOR = top_slack; semantic on keeps the module's ANCHOR.
    `no_abstain`: never abstain (to measure what the abstention costs; not a product variant)."""
    real = Q.query

    def query(*args, **kw):
        if no_abstain:
            kw["abstention"] = {"named_min": -1.0}
        if kw.get("semantic", True) or top_slack is None:
            return real(*args, **kw)
        saved = dict(Q.ANCHOR)
        Q.ANCHOR.update(top=top_slack[0], slack=top_slack[1])
        try:
            return real(*args, **kw)
        finally:
            Q.ANCHOR.update(saved)

    Q.query = query
    return real


def open_set(name: str, seeds: Path, bench: Path):
    from memory_plugin.core.config import load_config
    from memory_plugin.index.store import open_index, sync

    qpath, vault = set_paths(name)
    cache = bench / ("report" if name in REPORT else "sweep") / name
    if not cache.exists():
        shutil.copytree(seeds / name, cache, symlinks=True)
    cfg = load_config(vault=vault, cache_dir=cache)
    sync(cfg)
    return cfg, open_index(cfg), qpath


def figures(res: dict) -> dict:
    s = res["summary"]
    o = s["overall"]
    out = {k: {m: o[k].get(m) for m in ("r1", "r5", "mrr", "none", "kept")} for k in ("query", "lexical", "semantic", "baseline") if k in o}
    below = {"hyb<bm25": [], "hyb<sem": [], "lex<bm25": []}
    for kind, d in s.items():
        if kind in ("overall", "negative") or "r5" not in d.get("baseline", {}):
            continue
        if d["query"]["r5"] < d["baseline"]["r5"] - 1e-9:
            below["hyb<bm25"].append(kind)
        if "semantic" in d and d["query"]["r5"] < d["semantic"]["r5"] - 1e-9:
            below["hyb<sem"].append(kind)
        if d["lexical"]["r5"] < d["baseline"]["r5"] - 1e-9:
            below["lex<bm25"].append(kind)
    out["below"] = below
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed-caches", type=Path, default=Path("/work/caches"))
    ap.add_argument("--sets", nargs="*", default=list(DEV) + ["fixture"])
    ap.add_argument("--variants", nargs="*")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--no-abstain", action="store_true", help="measure without abstention (not a product variant)")
    ap.add_argument("--lex", nargs="*", default=["L0"], help="lexical-mode anchor variants (LEX_ANCHOR)")
    ap.add_argument("--report-once", action="store_true",
                    help="the single end-of-session run on the report sets: aggregates only, no per-question output")
    a = ap.parse_args()
    if REPORT & set(a.sets) and not a.report_once:
        sys.exit("report sets are run once at the end by bench/bench_retrieval.py, not swept")
    if a.report_once and not set(a.sets) <= REPORT:
        sys.exit("--report-once is for report sets only")
    from memory_plugin.search import evaluate as E
    from memory_plugin.search import query as Q
    from memory_plugin.search import retrieve as R

    bench = Path(os.environ.get("MEMORY_PLUGIN_BENCH_DIR", "/work/bench-fusion"))
    out_dir = a.out or bench / "sweep-out"
    out_dir.mkdir(parents=True, exist_ok=True)
    memoise_semantic()
    record_matches(R)
    variants = make_variants(R)
    names = [f"{v}.{l}" for v in (a.variants or list(variants)) for l in a.lex]
    if a.no_abstain:
        names = [n + ".NA" for n in names]
    orig = R.fuse
    table: dict = {}
    for s in a.sets:
        cfg, conn, qpath = open_set(s, a.seed_caches, bench)
        qs, _ = E.load_questions(qpath)
        for v in names:
            hv, lv = v.split(".")[:2]
            R.fuse = variants[hv]
            real_query = patch_lexical_anchor(Q, LEX_ANCHOR[lv] if lv != "L0" else None, a.no_abstain)
            t0 = time.perf_counter()
            try:
                res = E.run(cfg, conn, qs)
            finally:
                R.fuse, Q.query = orig, real_query
            if not a.report_once:  # report sets: aggregates only, never a per-question file
                (out_dir / f"{s}.{v}.json").write_text(json.dumps(res, indent=1))
            table.setdefault(v, {})[s] = figures(res)
            f = table[v][s]
            print(f"{v:8} {s:14} hyb R@5 {f['query']['r5']:.3f} MRR {f['query']['mrr']:.3f} | lex R@5 "
                  f"{f['lexical']['r5']:.3f} MRR {f['lexical']['mrr']:.3f} | sem {f.get('semantic', {}).get('r5', 0):.3f} "
                  f"| bm25 {f['baseline']['r5']:.3f} {f['baseline']['mrr']:.3f} | kept hyb {f['query']['kept']} lex "
                  f"{f['lexical']['kept']} | {f['below']} ({time.perf_counter() - t0:.1f}s)",
                  flush=True)
        conn.close()
    dev = [s for s in a.sets if s in DEV]
    print()
    for v in names:
        rows = [table[v][s] for s in dev]
        if not rows:
            continue
        m = lambda sys_, k: sum(r[sys_][k] for r in rows) / len(rows)  # noqa: E731
        print(f"{v:8} dev mean hybrid R@5 {m('query', 'r5'):.4f} MRR {m('query', 'mrr'):.4f} "
              f"(R@5+MRR)/2 {(m('query', 'r5') + m('query', 'mrr')) / 2:.4f} | lexical R@5 {m('lexical', 'r5'):.4f} "
              f"MRR {m('lexical', 'mrr'):.4f} | worst lex-bm25 "
              f"{min(r['lexical']['r5'] - r['baseline']['r5'] for r in rows):+.3f} | cells hyb<bm25 "
              f"{sum(len(r['below']['hyb<bm25']) for r in rows)} hyb<sem {sum(len(r['below']['hyb<sem']) for r in rows)}")
    if not a.report_once:
        (out_dir / "table.json").write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
