"""Retrieval eval: recall@1, recall@5 and MRR per kind for `query` and a plain FTS5-BM25 baseline.

recall@k = |expected ∩ top k| / min(|expected|, k), so a question with one expected note scores 1
when that note is in the top k. MRR uses the rank of the first expected note. A negative question
(no expected notes) is a false positive when anything at all is returned.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from .config import Config
from .errors import MemoryPluginError

KINDS = ("keyword", "paraphrase", "alias", "graph-bridge", "type-filtered", "temporal", "negative")


class EvalError(MemoryPluginError):
    pass


def default_questions() -> Path:
    from .resources import path

    return path("fixtures", "eval", "questions.yaml")  # shipped in the wheel (setup.py)


def load_questions(path: str | Path) -> tuple[list[dict], Path | None]:
    """-> (questions, the vault the file names, if any)."""
    import yaml

    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EvalError(f"questions file {p} does not exist: give the path to a questions.yaml") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise EvalError(f"questions file {p} cannot be read ({type(e).__name__}): fix it") from None
    qs = data.get("questions") if isinstance(data, dict) else data
    if not isinstance(qs, list) or not qs:
        raise EvalError(f"{p}: needs a non-empty `questions:` list")
    out = []
    for i, q in enumerate(qs, 1):
        if not isinstance(q, dict) or not isinstance(q.get("q"), str) or not q["q"].strip():
            raise EvalError(f"{p}: question {i} needs a `q:` text")
        exp = q.get("expect") or []
        if not isinstance(exp, list) or not all(isinstance(e, str) for e in exp):
            raise EvalError(f"{p}: question {i} `expect:` must be a list of note paths")
        kind = q.get("kind") or ("negative" if not exp else "other")
        if kind != "other" and kind not in KINDS:
            raise EvalError(f"{p}: question {i} ({q['q'].strip()!r}) has unknown kind `{kind}`: use one of "
                            f"{', '.join(KINDS)}, or leave it out")
        out.append({"id": q.get("id") or f"q{i}", "kind": kind,
                    "q": q["q"], "expect": exp, "type": q.get("type"), "project": q.get("project"),
                    "history": bool(q.get("history", False))})
    vault = data.get("vault") if isinstance(data, dict) else None
    return out, ((p.parent / vault).resolve() if isinstance(vault, str) else None)


def _score(ranked: list[str], expect: list[str]) -> dict:
    if not expect:
        return {"fp": 1.0 if ranked else 0.0}
    exp = set(expect)
    r1 = len(exp & set(ranked[:1])) / min(len(exp), 1)
    r5 = len(exp & set(ranked[:5])) / min(len(exp), 5)
    rr = next((1.0 / i for i, p in enumerate(ranked, 1) if p in exp), 0.0)
    return {"r1": r1, "r5": r5, "mrr": rr}


def run(cfg: Config, conn: sqlite3.Connection, questions: list[dict]) -> dict:
    from . import query as Q

    rows = []
    for q in questions:
        res = Q.query(cfg, conn, q["q"], type_=q["type"], project=q["project"] or "",
                      history=q["history"], budget=10**6, limit=10, record=False)
        ranked = [i["path"] for i in res["items"]]
        base = Q.baseline(conn, q["q"], q["type"], limit=10)
        rows.append({**q, "query_top": ranked[:5], "baseline_top": base[:5],
                     "query": _score(ranked, q["expect"]), "baseline": _score(base, q["expect"])})
    return {"questions": rows, "summary": summarize(rows)}


def summarize(rows: list[dict]) -> dict:
    kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    kinds += sorted({r["kind"] for r in rows} - set(kinds))
    out: dict[str, Any] = {}
    for kind in kinds + ["overall"]:
        sel = [r for r in rows if (r["kind"] == kind if kind != "overall" else True)]
        pos = [r for r in sel if r["expect"]]
        neg = [r for r in sel if not r["expect"]]
        d: dict[str, Any] = {"n": len(sel)}
        for system in ("query", "baseline"):
            s = {}
            if pos:
                for m in ("r1", "r5", "mrr"):
                    s[m] = round(sum(r[system][m] for r in pos) / len(pos), 3)
            if neg:
                s["fp"] = round(sum(r[system]["fp"] for r in neg) / len(neg), 3)
            d[system] = s
        out[kind] = d
    return out


def markdown(summary: dict) -> str:
    def f(d, k):
        return f"{d[k]:.2f}" if k in d else "–"

    lines = ["| kind | n | query R@1 | query R@5 | query MRR | query FP | BM25 R@1 | BM25 R@5 | BM25 MRR | BM25 FP |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind, d in summary.items():
        q, b = d["query"], d["baseline"]
        name = f"**{kind}**" if kind == "overall" else kind
        lines.append(f"| {name} | {d['n']} | {f(q, 'r1')} | {f(q, 'r5')} | {f(q, 'mrr')} | {f(q, 'fp')} | "
                     f"{f(b, 'r1')} | {f(b, 'r5')} | {f(b, 'mrr')} | {f(b, 'fp')} |")
    lines.append("")
    lines.append("R@k: share of the expected notes in the top k (of at most k); MRR: mean reciprocal rank of the "
                 "first expected note; FP: share of negative questions that returned anything.")
    return "\n".join(lines) + "\n"


def failures(result: dict) -> list[str]:
    out = []
    for r in result["questions"]:
        s = r["query"]
        if (r["expect"] and s["r5"] < 1) or (not r["expect"] and s["fp"]):
            out.append(f"{r['id']} ({r['kind']}): {r['q']!r} -> {r['query_top']} expected {r['expect']}")
    return out
