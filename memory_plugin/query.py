""""What do we know about X?": ranked, grouped, explained answers within a token budget; search.

Ranking, per note:
  base  = text relevance (FTS5 BM25 with column weights, and how much of the question it covers)
        + names (the question names the note's title or an alias) + tags (it names a tag the note has)
  score = (base + graph proximity to the best notes over typed edges, 1-2 hops, and shared tags
           + hub authority) × type intent × effective confidence × recency × project bias × status
The current project's notes (by property, folder or hub) come first, the others follow, each part
best first. Superseded and retracted notes sit below their successors, above them when the question
is about the past. Private notes are never read.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from . import textutil as T
from .config import Config
from .errors import MemoryPluginError

QUERY_TYPES = ("convention", "decision", "pitfall", "pattern", "learning", "task", "sop", "concept",
               "hub", "note", "journal")
GROUPS = [("Conventions", {"convention"}), ("Decisions", {"decision"}), ("Pitfalls", {"pitfall"}),
          ("Patterns", {"pattern"}), ("Learnings", {"learning"}), ("Tasks and SOPs", {"task", "sop"}),
          ("Concepts", {"concept"}), ("Other notes", None), ("Journal", {"journal"})]
HISTORICAL = frozenset({"superseded", "retracted", "stale", "deprecated", "obsolete", "archived"})
BM25_WEIGHTS = "10.0, 6.0, 4.0, 3.0, 1.0"  # title, aliases, tags, summary, body
EDGE_W = {"link": 0.5, "mdlink": 0.5, "embed": 0.5, "property": 0.8}
CHARS_PER_TOKEN = 4
MIN_BUDGET = 50  # tokens: below this not even one short item fits
JSON_KEYS = ("path", "title", "type", "score", "why", "summary")


class QueryError(MemoryPluginError):
    pass


def check_type(type_: str | None) -> str | None:
    if type_ is None:
        return None
    t = type_.strip().lower()
    if t not in QUERY_TYPES:
        raise QueryError(f"unknown type `{type_}`: use one of {', '.join(QUERY_TYPES)}")
    return t


def detect_project(conn: sqlite3.Connection, cwd: str | None = None) -> str | None:
    """The project the working folder belongs to (see project.detect); None when none or several match."""
    from . import project as P

    return P.detect_in_index(conn, cwd).name


# ---------------------------------------------------------------- parsing the question

def parse_question(text: str) -> dict:
    all_words = T.words(text)
    # The first word naming a kind of note is what is asked for ("which concept does the queue
    # decision depend on?" asks for a concept); "which/what/any <kind>" asks for it strongly.
    kinds = [(i, T.TYPE_WORDS[w]) for i, w in enumerate(all_words) if w in T.TYPE_WORDS]
    intent = {kinds[0][1]} if kinds else set()
    strong = bool(kinds) and kinds[0][0] <= 2 and any(w in ("which", "what", "any", "list", "all")
                                                       for w in all_words[:kinds[0][0]])
    history = any(w in T.HISTORY_WORDS for w in all_words) or "used to" in T.fold(text)
    statuses = set().union(*(T.STATUS_WORDS[w] for w in all_words if w in T.STATUS_WORDS))
    content = [w for w in all_words if w not in T.STOPWORDS and w not in T.TYPE_WORDS
               and w not in T.HISTORY_WORDS and w not in T.STATUS_WORDS]
    return {"words": all_words, "content": list(dict.fromkeys(content)), "intent": intent, "history": history,
            "statuses": statuses, "strong": strong}


# ---------------------------------------------------------------- candidates

class _Cand:
    __slots__ = ("path", "text", "cover", "matched", "name", "name_why", "tag", "tag_why", "prox", "prox_why",
                 "row", "score", "why", "mine")

    def __init__(self, path):
        self.path = path
        self.text = self.cover = self.name = self.tag = self.prox = 0.0
        self.matched: list[str] = []
        self.name_why = self.tag_why = ""
        self.prox_why: list[tuple[float, str]] = []
        self.row: dict | None = None
        self.score = 0.0
        self.why: list[str] = []
        self.mine = False


def _text_hits(conn, q: dict, type_: str | None, cands: dict[str, _Cand], n_notes: int) -> None:
    content = q["content"]
    if not content:
        return
    idf, unknown = {}, []
    for w in content:
        df = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (T.fts_term(w),)).fetchone()[0]
        if df:
            idf[w] = math.log((n_notes + 1) / (df + 0.5))
        else:
            unknown.append(w)
    if not idf:
        return
    # A word no note contains weighs like an average known word: one odd word in a long question
    # does not sink it, a question made mostly of unknown words finds nothing.
    mean = sum(idf.values()) / len(idf)
    total = sum(idf.values()) + mean * len(unknown)
    content = [w for w in content if w in idf]
    # Rank on the FTS table alone (cheap), then read the texts of the best hits only.
    expr = T.fts_or(content)
    if type_:
        ranked = conn.execute("SELECT f.rowid, -bm25(fts, " + BM25_WEIGHTS + ") FROM fts f JOIN notes n ON n.id = f.rowid "
                              "WHERE fts MATCH ? AND n.type = ? ORDER BY bm25(fts, " + BM25_WEIGHTS + ") LIMIT 200",
                              (expr, type_)).fetchall()
    else:
        ranked = conn.execute("SELECT rowid, -bm25(fts, " + BM25_WEIGHTS + ") FROM fts WHERE fts MATCH ? "
                              "ORDER BY bm25(fts, " + BM25_WEIGHTS + ") LIMIT 200", (expr,)).fetchall()
    if not ranked:
        return
    ids = [r[0] for r in ranked]
    ok = {r[0]: r[1] for r in conn.execute(
        f"SELECT id, path FROM notes WHERE id IN ({','.join('?' * len(ids))}) AND private = 0 AND skipped = 0", ids)}
    ranked = [(rid, sc) for rid, sc in ranked if rid in ok][:80]
    if not ranked:
        return
    texts = {r[0]: r[1:] for r in conn.execute(
        f"SELECT rowid, title, aliases, tags, summary, body FROM fts WHERE rowid IN ({','.join('?' * len(ranked))})",
        [r[0] for r in ranked])}
    best = ranked[0][1] or 1.0
    rx = {w: T.term_regex(w) for w in content}
    for rid, s in ranked:
        path = ok[rid]
        title, aliases, tags, summary, body = texts[rid]
        hay = T.fold(f"{title}\n{aliases}\n{tags}\n{summary}\n{body}")
        head = T.fold(f"{title}\n{aliases}\n{tags}\n{summary}")
        matched = [w for w in content if rx[w].search(hay)]
        cover = sum(idf[w] for w in matched) / total
        in_head = sum(idf[w] for w in matched if rx[w].search(head)) / total
        c = cands.setdefault(path, _Cand(path))
        c.cover, c.matched = cover, [_found_as(w, rx[w], hay) for w in matched]
        c.text = 0.45 * cover + 0.25 * in_head + 0.3 * (s / best)


def _found_as(w: str, rx: re.Pattern, hay: str) -> str:
    """`w` as the note writes it: `w` itself, else the form its stem matched: `test` (for testing)."""
    if re.search(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])", hay):
        return f"`{w}`"
    return f"`{T.WORD_RE.match(hay, rx.search(hay).start()).group()}` (for {w})"


def _name_hits(conn, q: dict, cands: dict[str, _Cand]) -> None:
    """Titles and aliases the question names, and tags it names."""
    words = q["words"]
    content = q["content"] or words
    n_content = max(1, len(content))
    # Names: candidate notes whose title / display title / alias shares a word with the question.
    like = [w for w in set(content) if len(w) >= 2][:12]
    if like:
        rows = conn.execute(
            "SELECT path, title, display_title, aliases FROM notes WHERE private = 0 AND skipped = 0 AND ("
            + " OR ".join(["lower(title) LIKE ? OR lower(display_title) LIKE ? OR lower(aliases) LIKE ?"] * len(like))
            + ") LIMIT 400", [f"%{w}%" for w in like for _ in range(3)]).fetchall()
        for path, title, dtitle, aliases in rows:
            best, why = 0.0, ""
            for kind, name in [("title", title), ("title", dtitle)] + [("alias", a) for a in json.loads(aliases or "[]")]:
                nw = T.words(name)
                if not nw or not T.contains_seq(words, nw):
                    continue
                if all(w in T.STOPWORDS for w in nw):
                    continue
                useful = [w for w in nw if w not in T.STOPWORDS]
                weight = min(1.0, len(useful) / n_content) ** 1.5
                if weight > best:
                    best, why = weight, f"{kind} `{name}` named in the question"
            if best:
                c = cands.setdefault(path, _Cand(path))
                c.name, c.name_why = best, why
    # Tags: a tag (or its last segment, or the tag with - and / read as spaces) named in the question.
    tag_rows = conn.execute("SELECT tag_lc, count(*) FROM tags GROUP BY tag_lc").fetchall()
    for tag, count in tag_rows:
        parts = T.words(tag)
        last = T.words(tag.rsplit("/", 1)[-1])
        if not parts:
            continue
        hit = T.contains_seq(words, parts) or (last and T.contains_seq(words, last))
        if not hit or all(w in T.TYPE_WORDS or w in T.STOPWORDS for w in last or parts):
            continue
        spec = 1.0 / math.log2(2 + count)
        weight = min(1.0, len(last or parts) / n_content) * (0.5 + 0.5 * spec)
        for (path,) in conn.execute("SELECT t.path FROM tags t JOIN notes n ON n.path = t.path "
                                    "WHERE t.tag_lc = ? AND n.private = 0", (tag,)):
            c = cands.setdefault(path, _Cand(path))
            if weight > c.tag:
                c.tag, c.tag_why = weight, f"tagged #{tag}"
    # Projects: a project named in the question counts like a tag on that project's notes.
    for (proj,) in conn.execute("SELECT DISTINCT project FROM notes WHERE project IS NOT NULL"):
        pw = T.words(proj)
        if not pw or not T.contains_seq(words, pw):
            continue
        n = conn.execute("SELECT count(*) FROM notes WHERE project = ?", (proj,)).fetchone()[0]
        weight = min(1.0, len(pw) / n_content) * (0.5 + 0.5 / math.log2(2 + n))
        for (path,) in conn.execute("SELECT path FROM notes WHERE project = ? AND private = 0", (proj,)):
            c = cands.setdefault(path, _Cand(path))
            if weight > c.tag:
                c.tag, c.tag_why = weight, f"project {proj}"


def _fetch_rows(conn, paths: list[str]) -> dict[str, dict]:
    out = {}
    cols = ("path", "title", "display_title", "type", "status", "project", "summary", "tags", "props",
            "created", "updated", "hub", "private", "skipped")
    for i in range(0, len(paths), 500):
        chunk = paths[i:i + 500]
        for r in conn.execute(f"SELECT {', '.join(cols)} FROM notes WHERE path IN ({','.join('?' * len(chunk))})", chunk):
            d = dict(zip(cols, r))
            d["props"] = json.loads(d["props"] or "{}")
            d["tags"] = json.loads(d["tags"] or "[]")
            out[d["path"]] = d
    return out


def _graph(conn, cands: dict[str, _Cand], base: dict[str, float]) -> None:
    """Spread relevance from the best notes to their neighbours (1-2 hops over links, and shared tags)."""
    if not base:
        return
    top = max(base.values())
    seeds = sorted((p for p, b in base.items() if b >= 0.4 * top), key=lambda p: -base[p])[:8]
    titles = dict(conn.execute(f"SELECT path, display_title FROM notes WHERE path IN ({','.join('?' * len(seeds))})", seeds))
    frontier: dict[str, float] = {}
    for s in seeds:
        b = base[s] / top
        rows = conn.execute(
            "SELECT l.target, l.kind, l.prop, 'out' FROM links l WHERE l.src = ? AND l.target IS NOT NULL "
            "UNION ALL SELECT l.src, l.kind, l.prop, 'in' FROM links l JOIN notes n ON n.path = l.src "
            "WHERE l.target = ? AND n.type != 'journal'", (s, s)).fetchall()
        nbrs = {}
        for other, kind, prop, d in rows:
            if other == s or not other.lower().endswith(".md"):
                continue
            w = EDGE_W.get(kind, 0.5) * (1.0 if d == "out" else 0.8)
            if w > nbrs.get(other, (0, ""))[0]:
                nbrs[other] = (w, (prop if kind == "property" and prop else None, d))
        fan = math.sqrt(max(1, len(nbrs)))
        for other, (w, label) in nbrs.items():
            contrib = b * w / fan
            c = cands.setdefault(other, _Cand(other))
            c.prox += contrib
            name = titles.get(s, s)
            prop, d = label
            if prop:
                why = f"[[{name}]] {prop.replace('_', ' ')} it" if d == "out" else f"{prop.replace('_', ' ')} [[{name}]]"
            else:
                why = f"linked from [[{name}]]" if d == "out" else f"links to [[{name}]]"
            c.prox_why.append((contrib, why))
            frontier[other] = max(frontier.get(other, 0), contrib)
    # A second hop, weaker, only along typed (property) edges from the strongest first-hop notes.
    for mid, strength in sorted(frontier.items(), key=lambda kv: -kv[1])[:10]:
        for other, prop in conn.execute("SELECT target, prop FROM links WHERE src = ? AND kind = 'property' "
                                        "AND target IS NOT NULL", (mid,)):
            if other in seeds or other == mid:
                continue
            c = cands.setdefault(other, _Cand(other))
            c.prox += 0.35 * strength
            c.prox_why.append((0.35 * strength, f"two links away ({prop})"))
    # Shared rare tags with the seeds (notes meet through the tag, not through an invented edge).
    for s in seeds[:4]:
        b = base[s] / top
        for tag, count in conn.execute("SELECT t.tag_lc, (SELECT count(*) FROM tags x WHERE x.tag_lc = t.tag_lc) "
                                       "FROM tags t WHERE t.path = ?", (s,)).fetchall():
            if count > 12 or count < 2 or tag in T.TYPE_WORDS:
                continue
            for (other,) in conn.execute("SELECT path FROM tags WHERE tag_lc = ? AND path != ?", (tag, s)):
                contrib = b * 0.2 / math.sqrt(count)
                c = cands.setdefault(other, _Cand(other))
                c.prox += contrib
                c.prox_why.append((contrib, f"shares #{tag} with [[{titles.get(s, s)}]]"))


def _in_project(r: dict, p: str) -> bool:
    """The note belongs to project `p` (folded): its `project` property, a folder of that name, or the
    project's hub."""
    return (T.fold(r["project"] or "") == p or p in (T.fold(f) for f in r["path"].split("/")[:-1])
            or bool(r["hub"]) and T.fold(r["title"]) == p)


def _days(value) -> int | None:
    from .memory import parse_date

    d = parse_date(value)
    return (_dt.date.today() - d).days if d else None


# ---------------------------------------------------------------- the answer

def query(cfg: Config, conn: sqlite3.Connection, text: str, *, type_: str | None = None,
          project: str | None = None, history: bool = False, budget: int | None = None,
          limit: int = 50, record: bool = True, cwd: str | None = None, as_json: bool = False) -> dict:
    """Answer "what do we know about `text`?" -> {query, items, omitted, first}: the current project's
    notes first, best first within each part, as many as `render(.., as_json)` fits in the budget."""
    from .memory import confidence, record_usage

    if not text or not text.strip():
        raise QueryError("empty query: ask about something, e.g. memory-plugin query \"job queue\"")
    budget = cfg.query_budget_tokens if budget is None else budget
    if budget < MIN_BUDGET:
        raise QueryError(f"budget {budget} is below the minimum of {MIN_BUDGET} tokens: "
                         f"give --budget {MIN_BUDGET} or more")
    type_ = check_type(type_)
    q = parse_question(text)
    history = history or q["history"]
    if project is None:
        project = detect_project(conn, cwd)
    pfold = T.fold(project) if project else ""
    n_notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0] or 1
    cands: dict[str, _Cand] = {}
    _text_hits(conn, q, type_, cands, n_notes)
    _name_hits(conn, q, cands)
    kinds = [type_] if type_ else sorted(q["intent"])
    if not q["content"] and kinds:
        # "pitfalls?" alone: every note of that kind, ranked by confidence, recency and project.
        for (path,) in conn.execute(f"SELECT path FROM notes WHERE type IN ({','.join('?' * len(kinds))}) "
                                    "AND private = 0 AND skipped = 0 LIMIT 500", kinds):
            c = cands.setdefault(path, _Cand(path))
            c.text, c.cover = max(c.text, 0.5), 1.0
    rows = _fetch_rows(conn, list(cands))
    base = {}
    for p, c in list(cands.items()):
        r = rows.get(p)
        if not r or r["private"] or r["skipped"] or (type_ and r["type"] != type_):
            cands.pop(p)
            continue
        anchored = c.cover >= 0.5 or c.name > 0 or c.tag > 0 or (len(q["content"]) <= 1 and c.text > 0)
        if anchored:
            base[p] = c.text + c.name + 0.7 * c.tag
    res = {"query": text, "items": [], "omitted": 0, "first": [type_] if type_ else sorted(q["intent"])}
    if not base:
        return pack(res, [], budget, as_json)
    _graph(conn, cands, base)
    missing = [p for p in cands if p not in rows]
    rows.update(_fetch_rows(conn, missing))
    uses = dict(conn.execute(f"SELECT path, hits FROM usage WHERE path IN ({','.join('?' * len(cands))})", list(cands)))
    indeg = dict(conn.execute(
        f"SELECT target, count(DISTINCT src) FROM links WHERE target IN ({','.join('?' * len(cands))}) GROUP BY target",
        list(cands)))
    successors: dict[str, set[str]] = {}
    for src, prop, target in conn.execute(
            f"SELECT src, prop, target FROM links WHERE kind = 'property' AND prop IN ('supersedes', 'superseded_by') "
            f"AND target IS NOT NULL AND (src IN ({','.join('?' * len(cands))}) OR target IN ({','.join('?' * len(cands))}))",
            list(cands) * 2):
        new, old = (src, target) if prop == "supersedes" else (target, src)
        successors.setdefault(old, set()).add(new)
    scored = []
    for p, c in cands.items():
        r = rows.get(p)
        if not r or r["private"] or r["skipped"] or (type_ and r["type"] != type_):
            continue
        b = base.get(p, 0.0)
        prox = min(c.prox, 1.0)
        if b == 0 and prox < 0.12:
            continue
        s = b + 0.8 * prox + 0.15 * min(1.0, math.log1p(indeg.get(p, 0)) / math.log1p(30))
        if q["intent"]:
            s *= 1.6 if r["type"] in q["intent"] else (0.45 if q["strong"] else 0.75)
        conf = confidence(cfg, r["props"], r["created"], uses.get(p, 0))
        s *= 0.8 + 0.2 * conf["effective"]
        age = _days(r["props"].get("last_validated")) or _days(r["updated"]) or _days(r["created"])
        s *= 0.9 + 0.1 * (0.5 ** (max(age, 0) / 365) if age is not None else 0.5)
        if r["type"] == "journal":
            s *= 0.6
        if q["statuses"] and (r["status"] or "") in q["statuses"]:
            s *= 1.25
        if project:
            c.mine = _in_project(r, pfold)
            s *= 1.4 if c.mine else (0.9 if r["project"] else 1.0)
        hist = (r["status"] or "") in HISTORICAL or p.lower().startswith("archive/") or "archive" in \
            [t.lower() for t in r["tags"]]
        if hist:
            s *= 2.2 if history else 0.6
        c.score = s
        scored.append(c)
    # Successors above what they replaced (below it when asking about the past).
    by_path = {c.path: c for c in scored}
    for old, news in successors.items():
        if old not in by_path:
            continue
        for new in news:
            if new in by_path:
                o, n = by_path[old], by_path[new]
                if history and o.score <= n.score:
                    o.score = n.score * 1.05
                elif not history and o.score >= n.score:
                    o.score = n.score * 0.95
    if not scored:
        return pack(res, [], budget, as_json)
    top = max(c.score for c in scored)
    scored.sort(key=lambda c: (not c.mine, -c.score, c.path))
    scored = [c for c in scored if c.score >= 0.12 * top][:limit]
    items = []
    for c in scored:
        r = rows[c.path]
        why = []
        if c.name_why:
            why.append(c.name_why)
        if c.matched:
            why.append("matched " + ", ".join(c.matched[:6]))
        if c.tag_why:
            why.append(c.tag_why)
        for _, w in sorted(c.prox_why, key=lambda x: -x[0])[:2]:
            why.append(w)
        if q["intent"] and r["type"] in q["intent"]:
            why.append(f"is a {r['type']}")
        if c.mine:
            why.append(f"project {project}")
        st = r["status"] or ""
        if st in HISTORICAL:
            succ = sorted(successors.get(c.path, ()))
            why.append(f"{st}" + (f" by [[{rows[succ[0]]['display_title'] if succ[0] in rows else succ[0]}]]"
                                  if succ and st == "superseded" else "") + (" (history)" if history else ""))
        items.append({"path": c.path, "title": r["display_title"], "type": r["type"], "status": r["status"],
                      "score": round(c.score, 4), "why": why, "summary": r["summary"] or ""})
    res = pack(res, items, budget, as_json)
    if record:
        record_usage(conn, [i["path"] for i in res["items"]])
    return res


# ---------------------------------------------------------------- rendering within the budget

def _group_of(type_: str) -> str:
    for name, types in GROUPS:
        if types and type_ in types:
            return name
    return "Other notes"


def _render_item(rank: int, it: dict) -> str:
    head = f"- {rank}. {it['title']} ({it['path']})"
    if it.get("status") in HISTORICAL:
        head += f" [{it['status']}]"
    lines = [head]
    if it["summary"]:
        lines.append(f"  {it['summary']}")
    if it["why"]:
        lines.append(f"  why: {'; '.join(it['why'])}")
    return "\n".join(lines)


def render_text(items: list[dict], omitted: int, first: list[str] | tuple = ()) -> str:
    """Items grouped by kind (the kind asked for, then conventions ... journal), in rank order within
    each group (so the current project's notes lead it); numbers give the overall rank."""
    ranked = list(enumerate(items, 1))
    out = []
    order = [g for g in GROUPS if g[1] and g[1] & set(first)] + [g for g in GROUPS if not (g[1] and g[1] & set(first))]
    for name, _types in order:
        members = [(i, it) for i, it in ranked if _group_of(it["type"]) == name]
        if members:
            out.append(f"## {name}")
            out += [_render_item(i, it) for i, it in members]
    if omitted:
        out.append(f"({omitted} more not shown: raise --budget)")
    return "\n".join(out) + ("\n" if out else "")


def render(res: dict, as_json: bool = False) -> str:
    """What `query` prints, text or JSON: the string the budget is measured on."""
    if as_json:
        return json.dumps({"query": res["query"], "items": [{k: it[k] for k in JSON_KEYS} for it in res["items"]],
                           "omitted": res["omitted"]}, ensure_ascii=False, indent=2) + "\n"
    if res["items"]:
        return render_text(res["items"], res["omitted"], res["first"])
    if res["omitted"]:
        return f"{res['omitted']} notes match but none fits in the budget: raise --budget\n"
    return f"Nothing in the vault about {res['query']!r}.\n"


def pack(res: dict, items: list[dict], budget_tokens: int, as_json: bool = False) -> dict:
    """`res` with the best items whose rendering fits in the budget, the rest counted in `omitted`.
    The echoed question is cut short when even an empty answer would not fit."""
    limit = budget_tokens * CHARS_PER_TOKEN

    def cost(shown: list[dict]) -> int:
        return len(render(dict(res, items=shown, omitted=len(items) - len(shown)), as_json))

    question = res["query"]
    while (over := cost([]) - limit) > 0 and question:
        question = question[:max(0, len(question) - over - 1)]
        res = dict(res, query=question + "…")
    shown: list[dict] = []
    for it in items:
        if cost(shown + [it]) <= limit:
            shown.append(it)
            continue
        trimmed = dict(it, summary="", why=it["why"][:1])
        if not shown and cost([trimmed]) <= limit:
            shown.append(trimmed)
            continue
        break
    return dict(res, items=shown, omitted=len(items) - len(shown))


# ---------------------------------------------------------------- search and the baseline

def search(conn: sqlite3.Connection, text: str, type_: str | None = None, limit: int = 20) -> list[dict]:
    """Ranked full-text hits with snippets (all words first, any word when none has all)."""
    if not text or not text.strip():
        raise QueryError("empty search: give some words, e.g. memory-plugin search \"busy_timeout\"")
    type_ = check_type(type_)
    ws = [w for w in T.words(text)]
    if not ws:
        raise QueryError(f"`{text}` has no words to search for: use letters or digits")
    content = [w for w in ws if w not in T.STOPWORDS] or ws
    sql = ("SELECT n.path, n.display_title, n.type, n.status, -bm25(fts, " + BM25_WEIGHTS + "), "
           "snippet(fts, -1, '[', ']', '…', 14) FROM fts f JOIN notes n ON n.id = f.rowid "
           "WHERE fts MATCH ? AND n.private = 0" + (" AND n.type = ?" if type_ else "")
           + " ORDER BY bm25(fts, " + BM25_WEIGHTS + ") LIMIT ?")
    rows = []
    for expr in (T.fts_and(content), T.fts_or(content)):
        rows = conn.execute(sql, [expr] + ([type_] if type_ else []) + [limit]).fetchall()
        if rows:
            break
    return [{"path": p, "title": t, "type": ty, "status": st, "score": round(s, 4),
             "snippet": re.sub(r"\s+", " ", sn or "").strip()} for p, t, ty, st, s, sn in rows]


def baseline(conn: sqlite3.Connection, text: str, type_: str | None = None, limit: int = 10) -> list[str]:
    """Plain FTS5 BM25 (default weights, the question's words minus stopwords, OR), for the eval."""
    content = [w for w in T.words(text) if w not in T.STOPWORDS]
    if not content:
        return []
    expr = " OR ".join(f'"{w}"' for w in dict.fromkeys(content))
    sql = ("SELECT n.path FROM fts f JOIN notes n ON n.id = f.rowid WHERE fts MATCH ? AND n.private = 0"
           + (" AND n.type = ?" if type_ else "") + " ORDER BY bm25(fts) LIMIT ?")
    return [r[0] for r in conn.execute(sql, [expr] + ([type_] if type_ else []) + [limit])]
