#!/usr/bin/env python3
"""Session 8, s8-lexabs (bench/eval/PROTOCOL.md, "Session 8: lexical-only abstention against plain
BM25"): query's lexical-only abstention rule against plain BM25 on the development sets only.

    python bench/s8_lexabs.py --dump    # per dev question: lexical ranking with abstention off, its
                                        # evidence, plain BM25 (and the fixture, as the floor)
    python bench/s8_lexabs.py           # main and the variants V1-V3 (per set, pooled, LOVO)

Abstention is decided before the ranking, so a rule's lexical result per question is exact from the
dump: nothing when the rule abstains, else the abstention-off ranking.
Cache dirs: $S8LEX_CACHES/<set> (default /work/s8lex), copies of the seed caches.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EVALDATA = Path(os.environ.get("MEMORY_PLUGIN_EVALDATA", "/work/evaldata"))
CACHES = Path(os.environ.get("S8LEX_CACHES", "/work/s8lex"))
DUMP = Path(os.environ.get("S8LEX_DUMP", "/tmp/s8lex-dump.json"))
DEV = ["til", "silverbullet", "logseq", "interlock-kb", "quartz-docs", "mdbook-guide", "dataview-docs",
       "dvogt23-notes", "ajhalili-garden"]
NEVER = {"named_min": 0.0}  # abstention off: named_w >= 0 always answers
GRID = [round(0.05 * i, 2) for i in range(11)]  # 0.00 .. 0.50 (PROTOCOL, V1 / V3)
HELD = 0.5  # V2 / V3: a BM25 top-5 note holds this share of the known idf mass


def sets_and_paths(name: str) -> tuple[Path, Path, Path]:
    if name == "fixture":
        return Path("/work/main/fixtures/vault"), CACHES / "fixture", ROOT / "fixtures" / "eval" / "questions.yaml"
    return EVALDATA / name / "vault", CACHES / name, ROOT / "bench" / "dev" / name / "questions.yaml"


def dump() -> dict:
    from memory_plugin.index import store as index
    from memory_plugin.search import query as Q
    from memory_plugin.core.config import load_config
    from memory_plugin.search.evaluate import _score, load_questions

    out = {}
    for v in DEV + ["fixture"]:
        vault, cache, qpath = sets_and_paths(v)
        cfg = load_config(vault=vault, cache_dir=cache)
        conn = index.open_index(cfg)
        qs, _ = load_questions(qpath)
        rows = []
        for q in qs:
            res = Q.query(cfg, conn, q["q"], type_=q["type"], project=q["project"] or "", history=q["history"],
                          budget=10**6, limit=10, record=False, semantic=False, abstention=NEVER)
            ranked = [i["path"] for i in res["items"]]
            ev = res.get("evidence") or {}
            base = Q.baseline(conn, q["q"], q["type"], limit=10)
            rows.append({"id": q["id"], "kind": q["kind"], "q": q["q"], "expect": q["expect"],
                         "ev": {k: ev.get(k) for k in ("known", "cover", "named_w", "semantic")},
                         "lex": _score(ranked, q["expect"]), "bm25": _score(base, q["expect"]),
                         "lex_top": ranked[:5]})
        conn.close()
        out[v] = rows
        print(f"{v}: {len(rows)} questions", file=sys.stderr)
    DUMP.write_text(json.dumps(out))
    return out


# ---------------------------------------------------------------- the rules
def main_rule(ev: dict) -> bool:
    from memory_plugin.search import query as Q

    return Q.abstain({**ev, "semantic": False})


def override(ev: dict) -> bool:
    from memory_plugin.search.query import ABSTAIN

    return (ev.get("named_w") or 0.0) >= ABSTAIN["named_min"] or (ev.get("cover") or 0.0) >= ABSTAIN["cover_min"]


def v1(t: float):
    return lambda ev: not override(ev) and ev["known"] < t


def v3(t: float):
    return lambda ev: not override(ev) and ev["known"] < t and (ev.get("cover") or 0.0) < HELD * ev["known"]


V2 = v3(0.5)


def tally(rows: list[dict], rule) -> dict:
    pos = [r for r in rows if r["expect"]]
    neg = [r for r in rows if not r["expect"]]
    r5 = [0.0 if rule(r["ev"]) else r["lex"]["r5"] for r in pos]
    none = sum(1 for r in neg if rule(r["ev"]) or r["lex"]["none"])
    kept = sum(1 for r in pos if not rule(r["ev"]) and r["lex"]["kept"])
    return {"r5": sum(r5) / len(pos), "bm25": sum(r["bm25"]["r5"] for r in pos) / len(pos),
            "off": sum(r["lex"]["r5"] for r in pos) / len(pos), "none": none, "neg": len(neg),
            "kept": kept, "pos": len(pos), "per_q": r5}


def ok_for_t(data: dict, sets: list[str], make, t: float) -> bool:
    """No set's lexical R@5 below min(BM25, abstention-off lexical)."""
    for s in sets:
        d = tally(data[s], make(t))
        if d["r5"] < min(d["bm25"], d["off"]) - 1e-9:
            return False
    return True


def choose_t(data: dict, sets: list[str], make) -> float:
    ok = [t for t in GRID if ok_for_t(data, sets, make, t)]
    return max(ok) if ok else 0.0


def regained(rows: list[dict], base_rule, rule) -> int:
    """Answerable questions main answers with nothing that the variant answers with an expected note in its top 5."""
    return sum(1 for r in rows if r["expect"] and (base_rule(r["ev"]) or not r["lex"]["kept"])
               and not rule(r["ev"]) and r["lex"]["r5"] > 0)


def report(data: dict, name: str, rules: dict[str, object], base: dict[str, dict]) -> dict:
    """rules: set -> rule (LOVO gives each set its own)."""
    per = {s: tally(data[s], rules[s]) for s in DEV}
    below = [s for s in DEV if per[s]["r5"] < per[s]["bm25"] - 1e-9]
    worst = min(per[s]["r5"] - per[s]["bm25"] for s in DEV)
    none = sum(per[s]["none"] for s in DEV)
    reg = sum(regained(data[s], main_rule, rules[s]) for s in DEV)
    fell = [s for s in DEV if per[s]["r5"] < base[s]["r5"] - 1e-9] if base else []
    cells = " | ".join(f"{per[s]['r5']:.3f} ({per[s]['none']}/{per[s]['neg']})" for s in DEV)
    print(f"| {name} | {cells} | {len(below)} | {worst:+.3f} | {none}/{sum(per[s]['neg'] for s in DEV)} | {reg} | "
          f"{','.join(fell) or '-'} |")
    return {"per": per, "below": below, "worst": worst, "none": none, "regained": reg, "fell": fell}


def verdict(v: dict, m: dict) -> str:
    lost = m["none"] - v["none"]
    checks = [len(v["below"]) < len(m["below"]), v["worst"] > m["worst"] + 1e-9, not v["fell"],
              lost <= min(v["regained"], m["none"] // 3)]
    return ("PASS" if all(checks) else "fail") + f" (1a {checks[0]}, 1b {checks[1]}, 2 {checks[2]}, 3 {checks[3]}: " \
        f"negatives lost {lost}, regained {v['regained']}, cap {m['none'] // 3})"


def hit(score: dict) -> float:
    """R@5 of an answerable question; 1 - none (answered at all) of a negative."""
    return score["r5"] if "r5" in score else 1 - score["none"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--detail", action="store_true", help="per question of main's abstentions (dev only)")
    a = ap.parse_args()
    data = dump() if a.dump else json.loads(DUMP.read_text())
    head = " | ".join(DEV)
    print(f"| rule | {head} | sets below BM25 | worst lex-BM25 | negatives nothing | regained | sets falling |")
    print("|---|" + "---|" * (len(DEV) + 5))
    bm = {s: tally(data[s], main_rule) for s in DEV}
    print("| BM25 | " + " | ".join(f"{bm[s]['bm25']:.3f}" for s in DEV) + " | | | | | |")
    print("| lexical, abstention off | " + " | ".join(f"{bm[s]['off']:.3f}" for s in DEV) + " | | | | | |")
    m = report(data, "main (known < 0.5)", {s: main_rule for s in DEV}, {})
    base = m["per"]
    out = {"main": m}
    for name, make in (("V1", v1), ("V3", v3)):
        ts = {s: choose_t(data, [x for x in DEV if x != s], make) for s in DEV}
        lv = report(data, f"{name} LOVO (t: {', '.join(f'{ts[s]:.2f}' for s in DEV)})",
                    {s: make(ts[s]) for s in DEV}, base)
        t = choose_t(data, DEV, make)
        ins = report(data, f"{name} all nine, t = {t:.2f}", {s: make(t) for s in DEV}, base)
        out[name] = (lv, ins, t)
        if name == "V1":
            v2 = report(data, "V2 (known < 0.5 and cover < 0.5 known)", {s: V2 for s in DEV}, base)
            out["V2"] = v2
    print()
    for name in ("V1", "V2", "V3"):
        if name == "V2":
            print(f"V2: {verdict(out['V2'], m)}")
        else:
            lv, ins, t = out[name]
            print(f"{name} LOVO: {verdict(lv, m)}; all nine (t {t:.2f}): {verdict(ins, m)}")
    # the fixture (floor)
    fx = data["fixture"]
    for name, rule in (("main", main_rule), ("V1 t", v1(out["V1"][2])), ("V2", V2), ("V3 t", v3(out["V3"][2]))):
        d = tally(fx, rule)
        print(f"fixture {name}: lexical R@5 {d['r5']:.3f}, negatives {d['none']}/{d['neg']}, kept {d['kept']}/{d['pos']}")
    if a.detail:
        for s in DEV:
            for r in data[s]:
                ev = r["ev"]
                if main_rule(ev) or (r["expect"] and r["lex"]["r5"] < r["bm25"]["r5"]):
                    print(f"{s} {r['id']} {'ANS' if r['expect'] else 'NEG'} known {ev['known']:.2f} cover "
                          f"{(ev['cover'] or 0):.2f} named {(ev['named_w'] or 0):.2f} abst {main_rule(ev)} "
                          f"off {hit(r['lex']):.2f} bm25 {hit(r['bm25']):.2f} "
                          f"V2 {V2(ev)} | {r['q'][:90]}")


if __name__ == "__main__":
    main()
