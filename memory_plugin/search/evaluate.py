"""Retrieval eval: recall@1, recall@5 and MRR per kind, and abstention on negatives, side by side for
the product (hybrid: lexical + semantic + graph, fused, with the rules), lexical only (the same
without the semantic retriever), semantic only (semantic.search alone) and a plain FTS5-BM25 baseline.

recall@k = |expected ∩ top k| / min(|expected|, k), so a question with one expected note scores 1
when that note is in the top k. MRR uses the rank of the first expected note. A negative question
(no expected notes) is answered well when nothing at all is returned ("none": the share of them).

Two question formats: this project's (`q`, `expect`, optional type/project/history) and the shared
eval sets' (`question`, `expected`, kinds paraphrase/keyword/alias/bridge/negative).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ..core import textutil as T
from ..core.config import Config
from ..core.errors import MemoryPluginError

KINDS = ("keyword", "paraphrase", "alias", "graph-bridge", "bridge", "type-filtered", "temporal", "negative")
# JSON keys: query is the product (hybrid), lexical the same without semantic, semantic that
# retriever alone (retrieve.RETRIEVERS), baseline plain BM25
SYSTEMS = ("query", "lexical", "semantic", "baseline")
LABELS = {"query": "hybrid", "lexical": "lexical", "semantic": "semantic", "baseline": "BM25"}


class EvalError(MemoryPluginError):
    pass


def default_questions() -> Path:
    from ..core.resources import path

    return path("fixtures", "eval", "questions.yaml")  # shipped in the wheel (setup.py)


def read_yaml(p: Path, what: str, fix: str, error: type[MemoryPluginError]):
    """The parsed YAML of an eval file, or `error` with one line naming the file and the fix."""
    import yaml

    try:
        return yaml.safe_load(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{what} file {p} does not exist: give the path to {fix}") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise error(f"{what} file {p} cannot be read ({type(e).__name__}): fix it") from None


def load_questions(path: str | Path) -> tuple[list[dict], Path | None]:
    """-> (questions, the vault the file names, if any)."""
    p = Path(path)
    data = read_yaml(p, "questions", "a questions.yaml", EvalError)
    qs = data.get("questions") if isinstance(data, dict) else data
    if not isinstance(qs, list) or not qs:
        raise EvalError(f"{p}: needs a non-empty `questions:` list")
    out = []
    for i, q in enumerate(qs, 1):
        text = q.get("q", q.get("question")) if isinstance(q, dict) else None
        if not isinstance(text, str) or not text.strip():
            raise EvalError(f"{p}: question {i} needs a `q:` (or `question:`) text")
        exp = q.get("expect", q.get("expected")) or []
        if not isinstance(exp, list) or not all(isinstance(e, str) for e in exp):
            raise EvalError(f"{p}: question {i} `expect:` (or `expected:`) must be a list of note paths")
        kind = q.get("kind") or ("negative" if not exp else "other")
        if kind != "other" and kind not in KINDS:
            raise EvalError(f"{p}: question {i} ({text.strip()!r}) has unknown kind `{kind}`: use one of "
                            f"{', '.join(KINDS)}, or leave it out")
        out.append({"id": q.get("id") or f"q{i}", "kind": kind,
                    "q": text, "expect": exp, "type": q.get("type"), "project": q.get("project"),
                    "history": bool(q.get("history", False))})
    vault = data.get("vault") if isinstance(data, dict) else None
    return out, ((p.parent / vault).resolve() if isinstance(vault, str) else None)


def _score(ranked: list[str], expect: list[str]) -> dict:
    if not expect:
        return {"none": 0.0 if ranked else 1.0}
    exp = set(expect)
    r1 = len(exp & set(ranked[:1])) / min(len(exp), 1)
    r5 = len(exp & set(ranked[:5])) / min(len(exp), 5)
    rr = next((1.0 / i for i, p in enumerate(ranked, 1) if p in exp), 0.0)
    return {"r1": r1, "r5": r5, "mrr": rr, "kept": 1.0 if ranked else 0.0}


def alone(cfg: Config, conn: sqlite3.Connection, q: dict, name: str = "semantic") -> list[str] | None:
    """One retriever of retrieve.RETRIEVERS alone, its top 10 (None when it cannot run: the
    semantic layer off)."""
    from . import query as Q, retrieve as R

    parsed = Q.parse_question(q["q"], Q.held_kinds(conn))
    found = R.RETRIEVER[name].run(R.Ask(cfg, conn, q["q"], parsed["words"], parsed["content"], q["type"]))
    return None if found is None else [p for p, _ in found[0]][:10]


def run(cfg: Config, conn: sqlite3.Connection, questions: list[dict]) -> dict:
    from . import query as Q

    rows = []
    notice = ""
    mode = "lexical"
    for q in questions:
        out = {}
        for system, semantic in (("query", True), ("lexical", False)):
            res = Q.query(cfg, conn, q["q"], type_=q["type"], project=q["project"] or "", history=q["history"],
                          budget=10**6, limit=10, semantic=semantic)
            out[system] = [i["path"] for i in res["items"]]
            notice = notice or res["notice"]
        sem = alone(cfg, conn, q, "semantic")
        if sem is not None:
            out["semantic"], mode = sem, "semantic"
        out["baseline"] = Q.baseline(conn, q["q"], q["type"], limit=10)
        rows.append({**q, **{f"{k}_top": v[:5] for k, v in out.items()},
                     **{k: _score(v, q["expect"]) for k, v in out.items()}})
    out = {"questions": rows, "summary": summarize(rows), "mode": mode, "notice": notice}
    if mode == "semantic":
        from ..semantic import vectors as semantic

        n = semantic.counts(conn)
        out["embedded"] = f"{n['embedded_notes']}/{T.plural(n['embeddable_notes'], 'note')} embedded" + (
            "" if n["embedded_notes"] >= n["embeddable_notes"] else
            f": run `memory-plugin --vault {cfg.vault} sync` to embed the rest")
    return out


def summarize(rows: list[dict]) -> dict:
    kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    kinds += sorted({r["kind"] for r in rows} - set(kinds))
    out: dict[str, Any] = {}
    for kind in kinds + ["overall"]:
        sel = [r for r in rows if (r["kind"] == kind if kind != "overall" else True)]
        pos = [r for r in sel if r["expect"]]
        neg = [r for r in sel if not r["expect"]]
        d: dict[str, Any] = {"n": len(sel)}
        for system in SYSTEMS:
            if system not in sel[0]:
                continue
            s = {}
            if pos:
                for m in ("r1", "r5", "mrr", "kept"):
                    s[m] = round(sum(r[system][m] for r in pos) / len(pos), 3)
            if neg:
                s["none"] = round(sum(r[system]["none"] for r in neg) / len(neg), 3)
            d[system] = s
        out[kind] = d
    return out


def markdown(summary: dict) -> str:
    def f(d, k):
        return f"{d[k]:.2f}" if k in d else "–"

    systems = [s for s in SYSTEMS if s in summary["overall"]]
    head = " | ".join(f"{LABELS[s]} {m}" for s in systems for m in ("R@1", "R@5", "MRR", "none"))
    lines = [f"| kind | n | {head} |", "|---|---:|" + "---:|" * (4 * len(systems))]
    for kind, d in summary.items():
        name = f"**{kind}**" if kind == "overall" else kind
        cells = " | ".join(f(d[s], m) for s in systems for m in ("r1", "r5", "mrr", "none"))
        lines.append(f"| {name} | {d['n']} | {cells} |")
    lines.append("")
    lines.append("hybrid: the product (lexical + semantic + graph, fused, with the rules); lexical: the same without "
                 "semantic; semantic: the semantic retriever alone; BM25: plain FTS5 BM25, OR of the words.")
    lines.append("R@k: share of the expected notes in the top k (of at most k); MRR: mean reciprocal rank of the "
                 "first expected note; none: share of negative questions answered with nothing.")
    return "\n".join(lines) + "\n"


def failures(result: dict) -> list[str]:
    out = []
    for r in result["questions"]:
        s = r["query"]
        if (r["expect"] and s["r5"] < 1) or (not r["expect"] and not s["none"]):
            out.append(f"{r['id']} ({r['kind']}): {r['q']!r} -> {r['query_top']} expected {r['expect']}")
    return out
