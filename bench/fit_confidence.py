#!/usr/bin/env python3
"""Session 6's calibrated-confidence experiment (issues 10 and 13, bench/eval/PROTOCOL.md, session 6):
fit bench/confidence_model.py's abstention model (FITTED) on the development sets only and report its
leave-one-vault-out figures beside main's rule; the prompt hook's per-item model too (figures only).
Neither is used by the product (PROTOCOL.md, session 6, steps 8-10).

Data (never a bench/eval/ set, never the fixture):
- answer vs abstain: bench/dev/{til,logseq,silverbullet,interlock-kb,quartz-docs}/questions.yaml,
  one fold per vault, per mode (semantic on, lexical only); label 1 when the question has expected notes.
- prompt items: bench/dev/prompts-{til,til2,silverbullet,logseq}.yaml, one fold per vault (til + til2
  one fold); each candidate (the first CANDIDATES items query returns without abstaining, not in the
  brief, not a journal) is labelled 1 when it is one of the prompt's expected notes.

Evidence is taken once per set and mode (query with abstention off) and kept in DUMP (a JSON file);
the features are computed from it by confidence_model.py, so a feature change needs no new dump.

Model: logistic regression on standardised features, L2 on the weights (not the bias), Newton's method
(NEWTON_STEPS steps, deterministic). L2 chosen from L2_GRID by the lowest mean leave-one-vault-out log
loss (ties within 0.005 to the larger). Thresholds by the criterion in PROTOCOL.md (session 6).

    .venv/bin/python bench/fit_confidence.py --dump      # take the evidence (minutes: embeds prompts)
    .venv/bin/python bench/fit_confidence.py             # leave-one-vault-out figures
    .venv/bin/python bench/fit_confidence.py --write     # also rewrite confidence_model.py's FITTED block
Cache dirs: $S6_CACHE_PREFIX<vault> (default /tmp/s6conf-<vault>), each an embedded index of that vault.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
import confidence_model as C  # noqa: E402
from fit_capture import _solve  # noqa: E402 - the one Gaussian elimination of both fits

NEVER = {"named_min": 0.0}  # query's abstention with this rule never answers with nothing (named_w >= 0)

EVALDATA = Path(os.environ.get("MEMORY_PLUGIN_EVALDATA", "/work/evaldata"))
CACHE_PREFIX = os.environ.get("S6_CACHE_PREFIX", "/tmp/s6conf-")
DUMP = Path(os.environ.get("S6_DUMP", "/tmp/s6conf-dump.json"))
QSETS = ["til", "logseq", "silverbullet", "interlock-kb", "quartz-docs", "mdbook-guide", "dataview-docs"]
PSETS = {"til": ["prompts-til", "prompts-til2"], "silverbullet": ["prompts-silverbullet"], "logseq": ["prompts-logseq"]}
CANDIDATES = 3
L2_GRID = [0.03, 0.1, 0.3, 1.0, 3.0]  # PROTOCOL session 6 criterion
L2_GRID_ANSWER = [0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0]  # + the amendment (step 7): 3.0 was the edge
# Feature subsets for the semantic answer model (amendment, step 7), chosen by mean LOVO log loss.
SUBSETS = {
    "A": None,
    "B": ["known", "sem_z", "gap_bg", "cover"],
    "C": ["known", "sem_z"],
    "D": ["known", "gap_bg", "gap10", "lex_in_sem", "sem_in_lex"],
    "E": ["known", "sem_z", "gap_bg", "cover", "lex_in_sem", "sem_in_lex"],
}
NEWTON_STEPS = 25
KEEP_POOLED, KEEP_EACH = 0.95, 0.90            # abstention: answerable kept, out of fold
PREC_POOLED, PREC_EACH, ORD_MAX = 0.90, 0.80, 0.05  # prompt items, out of fold


def cfg_for(vault: str):
    from memory_plugin.core.config import load_config

    return load_config(vault=EVALDATA / vault / "vault", cache_dir=CACHE_PREFIX + vault)


# ---------------------------------------------------------------- the prompt hook's items (the experiment)
# Tried and not adopted (PROTOCOL.md, session 6): kept here so its figures can be reproduced.

def item_features(item: dict, ev: dict, spec: float, describe: float | None, semantic: bool,
                  position: int = 0) -> dict[str, float]:
    """Named features of one candidate note for the prompt hook: `item` is a query item (its `found`:
    retriever -> (rank, score)), `ev` query's evidence, `spec` the idf of the prompt's words the note
    has in units of a word only one note has, `describe` the cosine of the prompt and the note's own
    description (title + summary; semantic on), `position` its place among the hook's candidates
    (0 = query's best)."""
    found = item.get("found") or {}
    rank = lambda k: found[k][0] if k in found else None  # noqa: E731
    word = min((r for r in (rank("lexical"), rank("forms"), rank("names")) if r), default=None)
    f = {
        "spec": min(spec, 6.0) / 6.0,
        "word_rank": -C._log_rank(word) / math.log2(C.DEPTH_CAP),
        "named": float(rank("names") == 1),
        "cover": ev.get("cover", 0.0),
        "known": ev.get("known", 1.0),
        "log_words": math.log(1 + ev.get("n_content", 1)),
        "first": float(position == 0),
    }
    if not semantic:
        f["lex_first"] = float(rank("lexical") == 1 and rank("forms") == 1)
        f["lex_margin"] = min(math.log(max(ev.get("lex_margin", 1.0), 1.0)), 2.0) if rank("lexical") == 1 else 0.0
        return f
    sem = found.get("semantic")
    cos = sem[1] if sem else 0.0
    f.update({
        "cos": cos,
        "sem_rank": -C._log_rank(sem[0] if sem else None) / math.log2(C.DEPTH_CAP),
        "gap_bg": cos - ev.get("sem_bg", cos),
        "sem_z": max(-4.0, min(4.0, ev.get("sem_z", 0.0))),
        "describe": describe if describe is not None else 0.0,
        # how far below the search's best note (0: it is the best), and by how much the best
        # stands out when it is this one
        "cos_rel": cos - ev.get("sem_top", cos),
        "margin": (ev.get("sem_top", cos) - ev.get("sem_2", cos)) if sem and sem[0] == 1 else 0.0,
    })
    return f


def description(item: dict) -> str:
    return f"{item.get('title') or ''}. {item.get('summary') or ''}"


def specificity(words, idf: dict, unique: float) -> float:
    ws = [w for w in dict.fromkeys(words) if w in idf]
    return sum(idf[w][0] for w in ws) / unique if unique else 0.0


# ---------------------------------------------------------------- evidence

def retrieval_evidence(cfg, conn, text: str, type_, ev: dict, semantic: bool) -> dict:
    """query's evidence (named_w, cover, known, semantic, sem_z ...) plus confidence_model.evidence's
    agreement and margin features, from the same retrievers query ran (deterministic: the same lists)."""
    from memory_plugin.search import query as Q
    from memory_plugin.search import retrieve as R

    q = Q.parse_question(text)
    lex = R.lexical(conn, q["content"], type_) if q["content"] else []
    forms = R.lexical(conn, q["content"], type_, forms=True) if q["content"] else []
    lex = lex or forms
    sem = None
    if semantic:
        stats: dict = {}
        hits, _, _ = Q.semantic_hits(cfg, conn, text, stats)
        if hits is not None:
            ok = R.public(conn, [h.path for h in hits], type_, by="path")
            sem = [(h.path, h.score) for h in hits if h.path in ok]
            calib = stats.get("calibration")
        else:
            calib = None
    out = dict(ev)
    out.update(C.evidence(lex, forms, sem, calib if sem is not None else None, len(q["content"])))
    out["semantic"] = ev.get("semantic", False)
    return out


def dump() -> dict:
    from memory_plugin.index import store as index
    from memory_plugin.claude import prompt_hook as P
    from memory_plugin.search import query as Q
    from memory_plugin.semantic import vectors as S
    from memory_plugin.search.evaluate import load_questions

    out: dict = {"questions": {}, "prompts": {}}
    for v in QSETS:
        cfg = cfg_for(v)
        conn = index.open_index(cfg)
        qs, _ = load_questions(ROOT / "bench" / "dev" / v / "questions.yaml")
        rows = []
        for q in qs:
            row = {"id": q["id"], "y": int(bool(q["expect"]))}
            for mode, sem in (("semantic", True), ("lexical", False)):
                res = Q.query(cfg, conn, q["q"], type_=q["type"], project=q["project"] or "", history=q["history"],
                              budget=10**6, limit=10, record=False, semantic=sem, abstention=NEVER)
                row[mode] = retrieval_evidence(cfg, conn, q["q"], q["type"], res.get("evidence") or {}, sem)
            rows.append(row)
        out["questions"][v] = rows
        conn.close()
        print(f"questions {v}: {len(rows)}", file=sys.stderr)
    for v, files in PSETS.items():
        cfg = cfg_for(v)
        conn = index.open_index(cfg)
        shown = set(P.fresh_state(str(cfg.cache_dir), None)["shown"])
        rows = []
        for f in files:
            data = yaml.safe_load((ROOT / "bench" / "dev" / (f + ".yaml")).read_text())
            for q in data["prompts"]:
                row = {"id": f + ":" + str(q.get("id")), "kind": q["kind"], "expected": q.get("expected") or [],
                       "in_brief": bool(set(q.get("expected") or []) & shown)}
                prompt = q["prompt"][:P.MAX_PROMPT_CHARS]
                idf, unique = P.prompt_idf(conn, prompt)
                row["precheck"] = P.worth_retrieving(idf, unique)
                for mode in ("semantic", "lexical"):
                    cands = []
                    if row["precheck"]:
                        res = Q.query(cfg, conn, prompt, record=False, limit=CANDIDATES + P.QUERY_ROOM, budget=100_000,
                                      semantic=mode != "lexical", abstention=NEVER, idf=idf, project="")
                        ev = retrieval_evidence(cfg, conn, prompt, None, res.get("evidence") or {}, mode != "lexical")
                        items = [it for it in res["items"] if it["path"] not in shown and it.get("type") != "journal"]
                        items = items[:CANDIDATES]
                        descr = [None] * len(items)
                        if mode == "semantic" and ev.get("semantic") and items:
                            qv = S.query_vector(cfg, prompt)
                            dv = S.embed(cfg, [description(it) for it in items])
                            descr = [float(qv @ d) for d in dv]
                        for it, d in zip(items, descr):
                            cands.append({"path": it["path"], "found": it.get("found"),
                                          "spec": specificity(it.get("matched") or (), idf, unique),
                                          "describe": d, "y": int(it["path"] in set(row["expected"]))})
                        row[mode + "_ev"] = ev
                    row[mode] = cands
                rows.append(row)
        out["prompts"][v] = rows
        conn.close()
        print(f"prompts {v}: {len(rows)}", file=sys.stderr)
    DUMP.write_text(json.dumps(out))
    return out


# ---------------------------------------------------------------- logistic regression

def fit(xs: list[dict], ys: list[int], l2: float) -> dict:
    names = sorted({n for x in xs for n in x})
    mean = {n: sum(x.get(n, 0.0) for x in xs) / len(xs) for n in names}
    sd = {n: math.sqrt(sum((x.get(n, 0.0) - mean[n]) ** 2 for x in xs) / len(xs)) or 1.0 for n in names}
    rows = [[1.0] + [(x.get(n, 0.0) - mean[n]) / sd[n] for n in names] for x in xs]
    d = len(names) + 1
    w = [0.0] * d
    for _ in range(NEWTON_STEPS):
        g = [0.0] * d
        h = [[0.0] * d for _ in range(d)]
        for r, y in zip(rows, ys):
            z = sum(wi * ri for wi, ri in zip(w, r))
            p = 1.0 / (1.0 + math.exp(-max(-60, min(60, z))))
            for i in range(d):
                g[i] += (p - y) * r[i]
                q = p * (1 - p) * r[i]
                for j in range(i, d):
                    h[i][j] += q * r[j]
        for i in range(d):
            for j in range(i):
                h[i][j] = h[j][i]
        for i in range(1, d):
            g[i] += l2 * w[i]
            h[i][i] += l2
        h[0][0] += 1e-9
        step = _solve(h, g)
        w = [wi - si for wi, si in zip(w, step)]
    return {"bias": round(w[0], 4), "weights": {n: round(w[i + 1], 4) for i, n in enumerate(names)},
            "mean": {n: round(mean[n], 4) for n in names}, "sd": {n: round(sd[n], 4) for n in names}}


def prob(m: dict, x: dict) -> float:
    return C._p(m["weights"], m["bias"], C._standard(x, m))


def logloss(ps, ys):
    return -sum(math.log(max(1e-9, p if y else 1 - p)) for p, y in zip(ps, ys)) / max(1, len(ys))


def lovo(folds: dict[str, tuple[list, list]], l2: float) -> dict[str, list[float]]:
    """Out-of-fold probabilities per fold."""
    out = {}
    for v in folds:
        xs = [x for u in folds if u != v for x in folds[u][0]]
        ys = [y for u in folds if u != v for y in folds[u][1]]
        m = fit(xs, ys, l2)
        out[v] = [prob(m, x) for x in folds[v][0]]
    return out


def choose_l2(folds, grid=None) -> tuple[float, dict, float]:
    runs = []
    for l2 in grid or L2_GRID:
        oof = lovo(folds, l2)
        loss = sum(logloss(oof[v], folds[v][1]) for v in folds) / len(folds)
        print(f"    L2 {l2}: mean LOVO log loss {loss:.4f}", file=sys.stderr)
        runs.append((l2, loss, oof))
    best = min(loss for _, loss, _ in runs)
    l2, loss, oof = max((r for r in runs if r[1] <= best + 0.005), key=lambda r: r[0])
    return l2, oof, loss


# ---------------------------------------------------------------- abstention

def old_abstain(ev: dict) -> bool:
    """main's rule (query.abstain with query.ABSTAIN), for the comparison."""
    from memory_plugin.search import query as Q

    return Q.abstain(ev)


def answer_data(data, mode):
    """Per fold (features, labels) of the questions the override does not decide (C.overridden: always
    answered, so the model is neither fit nor judged on them)."""
    folds = {}
    for v, rows in data["questions"].items():
        rows = [r for r in rows if not C.overridden(r[mode])]
        xs = [C.answer_features(r[mode], mode == "semantic" and bool(r[mode].get("semantic"))) for r in rows]
        folds[v] = (xs, [r["y"] for r in rows])
    return folds


def abst_table(data, mode, decide) -> tuple[str, dict]:
    lines, tot = [], {"kept": 0, "pos": 0, "none": 0, "neg": 0}
    for v, rows in data["questions"].items():
        pos = [r for r in rows if r["y"]]
        neg = [r for r in rows if not r["y"]]
        kept = sum(1 for r in pos if not decide(v, r))
        none = sum(1 for r in neg if decide(v, r))
        tot["kept"] += kept
        tot["pos"] += len(pos)
        tot["none"] += none
        tot["neg"] += len(neg)
        lines.append(f"  {v:14s} kept {kept}/{len(pos)} ({kept / len(pos):.3f})  negatives nothing {none}/{len(neg)}")
    lines.append(f"  {'pooled':14s} kept {tot['kept']}/{tot['pos']} ({tot['kept'] / tot['pos']:.3f})  "
                 f"negatives nothing {tot['none']}/{tot['neg']}")
    return "\n".join(lines), tot


def fit_answer(data, mode) -> tuple[dict, str]:
    full = answer_data(data, mode)
    best = None
    for name, keep in (SUBSETS.items() if mode == "semantic" else [("A", None)]):
        folds = {v: ([{k: x[k] for k in x if keep is None or k in keep} for x in xs], ys) for v, (xs, ys) in full.items()}
        print(f"answer model, {mode}, features {name}:", file=sys.stderr)
        l2, oof, loss = choose_l2(folds, L2_GRID_ANSWER)
        print(f"  -> L2 {l2}, LOVO log loss {loss:.4f}", file=sys.stderr)
        if best is None or loss < best[0]:
            best = (loss, name, keep, folds, l2, oof)
    _, subset, keep, folds, l2, oof = best
    grid = [i / 100 for i in range(1, 100)]
    chosen = None
    for t in grid:
        ok = True
        kp = pos = 0
        for v in folds:
            ys = folds[v][1]
            extra = sum(1 for r in data["questions"][v] if r["y"] and C.overridden(r[mode]))
            k = sum(1 for p, y in zip(oof[v], ys) if y and p >= t) + extra
            n = sum(ys) + extra
            kp, pos = kp + k, pos + n
            if k < KEEP_EACH * n:
                ok = False
        if ok and kp >= KEEP_POOLED * pos:
            chosen = t
    t = chosen if chosen is not None else 0.0
    idx = {v: {id(r): i for i, r in enumerate(x for x in data["questions"][v] if not C.overridden(x[mode]))}
           for v in folds}
    oof_txt, _ = abst_table(data, mode, lambda v, r: not C.overridden(r[mode]) and oof[v][idx[v][id(r)]] < t)
    old_txt, _ = abst_table(data, mode, lambda v, r: old_abstain(r[mode]))
    m = fit([x for v in folds for x in folds[v][0]], [y for v in folds for y in folds[v][1]], l2)
    m["threshold"] = t
    m["l2"] = l2
    m["features"] = subset
    ins_txt, _ = abst_table(data, mode, lambda v, r: not C.overridden(r[mode]) and prob(m, C.answer_features(
        r[mode], mode == "semantic" and bool(r[mode].get("semantic")))) < t)
    rep = (f"## answer vs abstain, {mode}: features {subset}, L2 {l2}, threshold {t}\n"
           f"today's rule (main):\n{old_txt}\nleave-one-vault-out:\n{oof_txt}\nin-sample (all):\n{ins_txt}\n")
    return m, rep


# ---------------------------------------------------------------- prompt items

def hook_rule(c: dict) -> bool:
    """The hook's ITEM_RULE (semantic on) on one dumped candidate, for the comparison (its query-level
    abstention left out, as for the model's candidates)."""
    from memory_plugin.claude import prompt_hook as P

    found = c.get("found") or {}
    rank = lambda k: found[k][0] if k in found else 10**9  # noqa: E731
    sem = found.get("semantic")
    return (sem is not None and sem[0] <= P.ITEM_RULE["agree_rank"] and sem[1] >= P.ITEM_RULE["semantic_min"]
            and min(rank(k) for k in P.WORD_RETRIEVERS) <= P.ITEM_RULE["word_rank"]
            and (c.get("describe") or 0.0) >= P.ITEM_RULE["describe_min"] and c["spec"] >= P.ITEM_RULE["specific"])


def item_variant(data, variant: str):
    """Candidates of the item experiment: "three" (the first three, as written first), "top1" (only the
    semantic search's first note), "top1+rule" (that, with the hook rule's verdict as a feature)."""
    if variant == "three":
        return data
    out = json.loads(json.dumps(data))
    for rows in out["prompts"].values():
        for r in rows:
            r["semantic"] = [c for c in r.get("semantic") or [] if ((c.get("found") or {}).get("semantic") or [99])[0] == 1][:1]
            if variant == "top1+rule":
                for c in r["semantic"]:
                    c["rule"] = float(hook_rule(c))
    return out


def item_data(data, mode):
    folds, meta = {}, {}
    for v, rows in data["prompts"].items():
        xs, ys, mm = [], [], []
        for r in rows:
            ev = r.get(mode + "_ev") or {}
            sem_on = mode == "semantic" and bool(ev.get("semantic"))
            for i, c in enumerate(r.get(mode) or []):
                x = item_features(c, ev, c["spec"], c["describe"], sem_on, i)
                if "rule" in c:
                    x["rule"] = c["rule"]
                xs.append(x)
                ys.append(c["y"])
                mm.append((r["id"], c["path"]))
        folds[v], meta[v] = (xs, ys), mm
    return folds, meta


def item_stats(data, mode, ok) -> dict:
    """Hook figures when an item is injected iff ok(vault, prompt id, path) (at most max 3 items)."""
    per = {}
    for v, rows in data["prompts"].items():
        items = hits = ans = n_ans = ordi = n_ord = neg = n_neg = 0
        for r in rows:
            got = [c for c in (r.get(mode) or []) if ok(v, r["id"], c["path"])][:3]
            items += len(got)
            h = sum(c["y"] for c in got)
            hits += h
            if r["kind"] == "answerable":
                n_ans += 1
                ans += bool(h)
            elif not r["expected"] and r["kind"] == "ordinary":
                n_ord += 1
                ordi += bool(got)
            elif not r["expected"] and r["kind"] == "negative":
                n_neg += 1
                neg += bool(got)
        per[v] = {"items": items, "hits": hits, "ans": ans, "n_ans": n_ans, "ord": ordi, "n_ord": n_ord,
                  "neg": neg, "n_neg": n_neg}
    return per


def item_txt(per) -> str:
    lines = []
    tot = {k: sum(p[k] for p in per.values()) for k in next(iter(per.values()))}
    for v, p in list(per.items()) + [("pooled", tot)]:
        prec = p["hits"] / p["items"] if p["items"] else float("nan")
        lines.append(f"  {v:14s} items {p['items']:3d} precision {prec:.3f} answered {p['ans']}/{p['n_ans']} "
                     f"({p['ans'] / max(1, p['n_ans']):.3f}) ordinary injected {p['ord']}/{p['n_ord']} "
                     f"negative injected {p['neg']}/{p['n_neg']}")
    return "\n".join(lines)


def fit_item(data, mode) -> tuple[dict, str]:
    folds, meta = item_data(data, mode)
    print(f"item model, {mode}:", file=sys.stderr)
    l2, oof, _ = choose_l2(folds)
    score = {(v, pid, path): p for v in folds for (pid, path), p in zip(meta[v], oof[v])}
    chosen = None
    for t in [i / 100 for i in range(1, 100)]:
        per = item_stats(data, mode, lambda v, pid, path: score.get((v, pid, path), 0) >= t)
        tot = {k: sum(p[k] for p in per.values()) for k in next(iter(per.values()))}
        if not tot["items"]:
            continue
        if (tot["hits"] / tot["items"] >= PREC_POOLED
                and all(p["items"] == 0 or p["hits"] / p["items"] >= PREC_EACH for p in per.values())
                and tot["ord"] <= ORD_MAX * tot["n_ord"]):
            chosen = t
            break
    t = chosen if chosen is not None else 1.0
    per = item_stats(data, mode, lambda v, pid, path: score.get((v, pid, path), 0) >= t)
    m = fit([x for v in folds for x in folds[v][0]], [y for v in folds for y in folds[v][1]], l2)
    m["threshold"] = t
    m["l2"] = l2
    rep = f"## prompt items, {mode}: L2 {l2}, threshold {t}\nleave-one-vault-out:\n{item_txt(per)}\n"
    sweep = []
    for u in (0.5, 0.6, 0.7, 0.8, 0.9):
        st = item_stats(data, mode, lambda v, pid, path: score.get((v, pid, path), 0) >= u)
        tot = {k: sum(p[k] for p in st.values()) for k in next(iter(st.values()))}
        sweep.append(f"{u}: precision {tot['hits'] / tot['items'] if tot['items'] else float('nan'):.3f} "
                     f"answered {tot['ans'] / max(1, tot['n_ans']):.3f} ordinary {tot['ord']}/{tot['n_ord']}")
    rep += "out-of-fold sweep (pooled): " + "; ".join(sweep) + "\n"
    if mode == "semantic":
        rule = {(v, r["id"], c["path"]) for v, rows in data["prompts"].items() for r in rows
                for c in r.get("semantic") or [] if hook_rule(c)}
        rep += "the hook's rule on the same candidates:\n" + item_txt(
            item_stats(data, mode, lambda v, pid, path: (v, pid, path) in rule)) + "\n"
    allsc = {(v, pid, path): prob(m, x) for v in folds for (pid, path), x in zip(meta[v], folds[v][0])}
    rep += "in-sample:\n" + item_txt(item_stats(data, mode, lambda v, pid, path: allsc[(v, pid, path)] >= t)) + "\n"
    return m, rep


def write(models: dict) -> None:
    p = ROOT / "bench" / "confidence_model.py"
    s = p.read_text()
    keep = ("bias", "weights", "mean", "sd", "threshold", "l2", "features")
    body = "FITTED: dict = " + json.dumps({"answer": {mm: {kk: v[kk] for kk in keep} for mm, v in
                                                      models["answer"].items()}}, indent=4) + "\n"
    body = body.replace("true", "True").replace("false", "False").replace("null", "None")
    new = re.sub(r"(# BEGIN FITTED[^\n]*\n).*?(# END FITTED)", lambda m: m.group(1) + body + m.group(2), s, flags=re.S)
    p.write_text(new)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--item-variant", choices=("three", "top1", "top1+rule"), default="three")
    a = ap.parse_args()
    data = dump() if a.dump or not DUMP.exists() else json.loads(DUMP.read_text())
    models = {"answer": {}, "item": {}}
    for mode in ("semantic", "lexical"):
        m, rep = fit_answer(data, mode)
        models["answer"][mode] = m
        print(rep)
    idata = item_variant(data, a.item_variant)
    for mode in ("semantic", "lexical"):
        m, rep = fit_item(idata, mode)
        models["item"][mode] = m
        print(rep)
    if a.write:
        write(models)


if __name__ == "__main__":
    main()
