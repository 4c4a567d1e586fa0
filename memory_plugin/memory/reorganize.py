"""Hygiene proposals for the vault, and applying the ones a user picks.

Only safe changes are ever applied: a new note (a hub for a community, a stub that points a
dangling link at its intended note) or property lines (`status: stale`, a `summary`). Nothing is
deleted and no body text is rewritten; everything else is listed with a suggestion.
"""
from __future__ import annotations

import datetime as _dt
import difflib
import json
import os
import re
import sqlite3
from collections import Counter, defaultdict
from typing import Any, Callable

from . import write as M
from ..index import lifecycle as L
from ..vault import propedit
from ..core import textutil as T
from ..core.config import Config
from ..core.errors import MemoryPluginError
from ..core.fsutil import atomic_write

KIND_TITLES = {
    "duplicate": "Possible duplicates", "dangling": "Dangling links", "orphan": "Orphans",
    "stale": "Memories below the prune threshold", "contradiction": "Contradictions left open",
    "missing-summary": "Notes without a summary", "no-hub": "Communities without a hub note",
    "superseded-linked": "Superseded notes still linked as current",
}
MEMORY_KINDS = {"decision", "pitfall", "pattern", "learning"}  # stale-able without a stored confidence
MIN_SUMMARY_WORDS = 4  # a first paragraph shorter than this is no usable summary
MAX_QUOTED = 50        # matches by meaning whose closest passages are quoted (the best first)
HUB_COVERS = 0.5       # an existing hub linking this share of a community's members already is its hub
_PAST_RE = re.compile(r"supersed|replaced|deprecated|histor|previous|\bold\b|\bwas\b|archive", re.I)


class ReorganizeError(MemoryPluginError):
    pass


NOTES_SQL = ("SELECT n.path, n.title, n.display_title, n.type, n.status, n.summary, n.props, n.created, n.hash, "
             "n.folder, n.project, n.hub, f.body FROM notes n JOIN fts f ON f.rowid = n.id "
             "WHERE n.private = 0 AND n.skipped = 0")


def _rows(conn, sql, args=()):
    cur = conn.execute(sql, args)
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def proposals(cfg: Config, conn: sqlite3.Connection, today: _dt.date | None = None,
              communities: bool = True) -> list[dict]:
    """Every proposal, numbered from 1 in a stable order (kind, then path)."""
    today = today or _dt.date.today()
    notes = _rows(conn, NOTES_SQL)
    for n in notes:
        n["props"] = json.loads(n["props"] or "{}")
    by_path = {n["path"]: n for n in notes}
    succ = L.successors(conn)
    out: list[dict] = []
    out += _duplicates(notes, cfg, conn)
    out += _dangling(conn, by_path)
    out += [{"kind": "orphan", "title": f"{o['path']} has no links in or out", "notes": [o["path"]],
             "action": None, "suggestion": "link it from a hub or a related note, or leave it be"}
            for o in _orphans(conn) if o["path"] in by_path]
    out += _stale(cfg, conn, notes, today, succ)
    out += _contradictions(conn, by_path, succ)
    out += _missing_summaries(notes, cfg, conn)
    if communities:
        out += _no_hub(cfg, conn, by_path, today)
    out += _superseded_linked(cfg, conn, by_path, succ)
    for i, p in enumerate(out, 1):
        p["id"] = i
    return out


def _orphans(conn):
    from ..index.graph import orphans

    return orphans(conn)


def _duplicates(notes: list[dict], cfg: Config | None = None, conn: sqlite3.Connection | None = None) -> list[dict]:
    """Pairs the duplicate judge calls near-duplicates: by text (lexical), or, in semantic mode with
    the index's vectors current, by text or meaning (`dupes.combine`)."""
    from . import dupes

    pool = [n for n in notes if n["type"] not in ("journal", "hub") and not n["hub"]]
    names = dupes.project_names(conn) if conn is not None else {}
    docs = [dupes.Doc(n["title"], n["type"], dupes.canon_project(n["project"], names), n["summary"] or "",
                      n["body"] or "",
                      (n["display_title"],) if n["display_title"] != n["title"] else (), n["path"], n["hash"])
            for n in pool]
    idf = dupes.Idf.from_docs(docs)
    pairs = dupes.candidate_pairs(docs, idf)
    sem = _note_vectors(cfg, conn, pool) if cfg is not None and conn is not None else None
    if sem is not None:
        from . import dupes_sem

        mat, row_of = sem
        ids = sorted(row_of, key=row_of.get)
        pairs |= {(ids[i], ids[j]) for i, j in dupes_sem.pairs_above(mat, dupes.SEM_CANDIDATE)}
    # a pair the vault already relates (one supersedes or contradicts the other) is decided: no proposal
    related = set()
    if conn is not None:
        related = {frozenset(r) for r in conn.execute(
            "SELECT src, target FROM links WHERE kind = 'property' AND target IS NOT NULL AND src != target "
            f"AND prop IN {L.in_sql((*L.SUPERSESSION, 'contradicts'))}")}
    judged = []
    for a, b in sorted(pairs):
        if frozenset((pool[a]["path"], pool[b]["path"])) in related:
            continue
        v = dupes.judge(docs[a], docs[b], idf)
        if sem is not None and a in sem[1] and b in sem[1]:
            v = dupes.combine(v, float(sem[0][sem[1][a]] @ sem[0][sem[1][b]]), dupes.SEM_THRESHOLD_VAULT)
        if v.duplicate:
            judged.append((a, b, v))
    # the closest passages of the best matches by meaning (what the listing shows first): one batched
    # model call over their sentences, bounded so a templated vault's thousands of pairs cost seconds
    by_meaning = sorted(((a, b, v) for a, b, v in judged if v.cosine is not None and not dupes.has_passage(v)),
                        key=lambda t: -t[2].score)[:MAX_QUOTED]
    for (a, b, v), pair in zip(by_meaning, _closest(cfg, [(docs[a], docs[b]) for a, b, _ in by_meaning])):
        dupes.quote_closest(v, pair)
    out = []
    for a, b, v in judged:
        if v.duplicate:
            p1, p2 = sorted((pool[a]["path"], pool[b]["path"]))
            out.append({"kind": "duplicate", "title": f"{p1} and {p2} look alike", "notes": [p1, p2],
                        "score": v.score, "reasons": v.reasons, "by": v.by, "action": None,
                        "suggestion": f"merge by hand, or `memory-plugin supersede '{p1}' '{p2}'`"})
    out.sort(key=lambda p: (-p["score"], p["notes"]))
    return out


def _note_vectors(cfg, conn, pool: list[dict]):
    """(matrix of note vectors, {pool index: row}) in semantic mode, else None."""
    from . import dupes_sem

    if not dupes_sem.active(cfg, conn):
        return None
    import numpy as np

    vecs = dupes_sem.stored(conn, [n["path"] for n in pool])
    have = [i for i, n in enumerate(pool) if n["path"] in vecs]
    if not have:
        return None
    return np.stack([vecs[pool[i]["path"]] for i in have]), {i: r for r, i in enumerate(have)}


def _closest(cfg, pairs: list) -> list:
    from . import dupes_sem
    from ..semantic.vectors import SemanticUnavailable

    if not pairs:
        return []
    try:
        return dupes_sem.closest_many(cfg, pairs)
    except SemanticUnavailable:  # vectors stored but the model cannot load now: the cosine stands alone
        return [None] * len(pairs)


def _dangling(conn, by_path: dict) -> list[dict]:
    from ..index.graph import dangling

    titles = {}
    for p, n in by_path.items():
        for t in (n["title"], n["display_title"]):
            titles.setdefault(T.fold(t), p)
    title_keys = list(titles)
    out = []
    for k, d in enumerate(dangling(conn)):
        target = d["target"]
        name = target.rsplit("/", 1)[-1]
        intended, why = None, ""
        row = conn.execute("SELECT a.path FROM aliases a JOIN notes n ON n.path = a.path WHERE a.alias_lc = ? "
                           "AND n.private = 0 ORDER BY a.path LIMIT 1", (T.fold(name),)).fetchone()
        if row:
            intended, why = row[0], f"`{name}` is an alias of it"
        if not intended:
            for (disp,) in conn.execute("SELECT DISTINCT display FROM links WHERE target IS NULL AND lower(linkpath) = ?",
                                        (target.lower(),)):
                if disp and T.fold(disp.strip()) in titles:
                    intended, why = titles[T.fold(disp.strip())], "written label-first ([[label|target]])"
                    break
        if not intended and k < 300:
            close = difflib.get_close_matches(T.fold(name), title_keys, n=1, cutoff=0.85)
            if close:
                intended, why = titles[close[0]], f"close to the name `{by_path[titles[close[0]]]['title']}`"
        action = None
        if intended:
            stub = _stub_path(target, intended)
            if stub:
                action = {"op": "create", "path": stub, "text": _stub_text(intended, by_path[intended])}
        p = {"kind": "dangling", "title": f"[[{target}]] ({d['count']}× from {', '.join(d['from_notes'][:3])}"
                                           f"{' …' if len(d['from_notes']) > 3 else ''}) has no note",
             "notes": d["from_notes"], "target": target, "intended": intended, "reasons": [why] if why else [],
             "action": action,
             "suggestion": (f"create {action['path']} pointing to [[{by_path[intended]['title']}]]" if action else
                            "write the note, or fix the link by hand")}
        out.append(p)
    return out


def _stub_path(target: str, intended: str) -> str | None:
    """Where a stub for the dangling `target` would go, or None when no note should: a path out of
    the vault or into a dot-folder, or a link with a colon in it (a URI such as Dendron's
    `dendron://vault/note`: the fix is the link; a file name with ':' is no portable one)."""
    parts = [s for s in target.replace("\\", "/").split("/") if s]
    if not parts or ":" in target or any(s in (".", "..") or s.startswith(".") for s in parts):
        return None
    try:
        name = M.safe_filename(parts[-1][:-3] if parts[-1].lower().endswith(".md") else parts[-1])
    except MemoryPluginError:
        return None
    folder = "/".join(parts[:-1]) if len(parts) > 1 else intended.rsplit("/", 1)[0] if "/" in intended else ""
    return f"{folder}/{name}.md" if folder else f"{name}.md"


def _stub_text(intended: str, note: dict) -> str:
    link = note["title"]
    return (f"---\nsummary: {propedit.render('Points to ' + note['display_title'] + '.')}\n"
            f"redirect: {propedit.render(f'[[{link}]]')}\n---\nSee [[{link}]].\n")


def _stale(cfg, conn, notes, today, succ: dict) -> list[dict]:
    out = []
    for n in notes:
        # memories, or notes that carry a confidence; never one already superseded or retracted, nor
        # a convention (a rule its owner set does not go stale with time: L.NO_DECAY_TYPES)
        if n["type"] not in MEMORY_KINDS and not L.has_confidence(n["props"]):
            continue
        if not L.decays(n["type"]):
            continue
        if L.historical(n["status"], n["path"] in succ):
            continue
        c = L.confidence(cfg, n["props"], n["created"], today, type_=n["type"])
        if c["effective"] < cfg.prune_threshold:
            out.append({"kind": "stale", "title": f"{n['path']}: confidence {c}", "notes": [n["path"]],
                        "score": c["effective"],
                        "action": {"op": "set_props", "path": n["path"], "changes": [["status", "stale"]]},
                        "suggestion": f"mark it stale, or `memory-plugin validate '{n['path']}'` if it still holds"})
    out.sort(key=lambda p: (p["score"], p["notes"]))
    return out


def _contradictions(conn, by_path, succ: dict) -> list[dict]:
    out = []
    for src, target in conn.execute("SELECT DISTINCT src, target FROM links WHERE kind = 'property' AND "
                                    "prop = 'contradicts' AND target IS NOT NULL ORDER BY src, target"):
        a, b = by_path.get(src), by_path.get(target)
        if not a or not b:
            continue
        if L.historical(a["status"], src in succ) or L.historical(b["status"], target in succ):
            continue
        out.append({"kind": "contradiction", "title": f"{src} contradicts {target}; both are current",
                    "notes": [src, target], "action": None,
                    "suggestion": f"decide which holds: `memory-plugin supersede '{target}' '{src}'` (or the reverse)"
                                  " or `retract` one"})
    return out


def _briefed(cfg, conn) -> set[str]:
    """Paths the SessionStart brief can show with a summary: conventions, hubs, project notes."""
    from ..outputs import brief as B
    from ..index import graph as G
    from ..index import project as P

    shown = {c["path"] for c in G.conventions(conn)} | {h["path"] for h in G.hubs(conn, cfg.hub_count)}
    shown |= {p for (p,) in conn.execute("SELECT path FROM notes WHERE hub = 1")}
    for proj in P.catalog(conn):
        shown |= {n["path"] for n in B._project_notes(conn, proj)}
    return shown


def _missing_summaries(notes, cfg, conn) -> list[dict]:
    """Notes the brief shows that have neither a summary property nor a usable first paragraph."""
    shown = _briefed(cfg, conn)
    out = []
    for n in sorted(notes, key=lambda n: n["path"]):
        if n["path"] not in shown or n["type"] == "journal" or "summary" in n["props"] \
                or "description" in n["props"] or str(n["props"].get("desc") or "").strip():
            continue  # Dendron keeps its summary in `desc`
        derived = n["summary"] or ""
        if len(T.words(derived)) >= MIN_SUMMARY_WORDS:
            continue  # its first paragraph already serves as its summary
        out.append({"kind": "missing-summary", "title": f"{n['path']} has no summary and no first paragraph "
                                                       "to stand for one", "notes": [n["path"]], "action": None,
                    "suggestion": "write a one-line summary property (the brief shows it)"})
    return out


def _hub_folder(cfg, conn) -> str:
    """Where the vault keeps its hubs: the configured hub folder, else the folder most authored hubs
    live in, else Maps/ when it exists, else the vault root."""
    folder = next((f.strip("/") for f in cfg.hub_folders if f.strip("/")), None)
    if folder is not None:
        return folder
    counts = Counter(f for (f,) in conn.execute("SELECT folder FROM notes WHERE hub = 1 AND private = 0 "
                                                "AND type != 'journal'"))
    if counts:
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return "Maps" if (cfg.vault / "Maps").is_dir() else ""


def _project_key(n: dict) -> str:
    from ..index.project import PROJECT_FOLDERS

    if n.get("project"):
        return T.fold(n["project"])
    parts = (n.get("folder") or "").split("/")
    for i, part in enumerate(parts[:-1]):
        if part.lower() in PROJECT_FOLDERS:
            return T.fold(parts[i + 1])
    return ""


def _no_hub(cfg, conn, by_path, today) -> list[dict]:
    from ..outputs import graphdata

    try:
        comms = graphdata.communities(graphdata.load(conn))
    except Exception:  # a graph that networkx cannot partition yields no proposal, not an error
        return []
    folder = _hub_folder(cfg, conn)
    # Who links whom: a note that already links most of a group (an authored hub, a Dendron parent,
    # an index note) is that group's hub, whatever its type.
    out_links: dict[str, set[str]] = defaultdict(set)
    for src, target in conn.execute("SELECT src, target FROM links WHERE target IS NOT NULL AND src != target"):
        if src in by_path:
            out_links[src].add(target)
    out, taken = [], set()
    for cm in comms:
        if cm["has_hub"]:
            continue
        # a hub stays within one project: a community spanning projects gives one proposal per project
        groups: dict[str, list[str]] = defaultdict(list)
        for m in cm["members"]:
            if m in by_path and by_path[m]["type"] != "journal":
                groups[_project_key(by_path[m])].append(m)
        for _key, members in sorted(groups.items()):
            if len(members) < 3:
                continue
            group = set(members)
            need = max(2, HUB_COVERS * len(group))
            if any(len(links & group) >= need for links in out_links.values()):
                continue  # a note already links most of them: it is their hub
            p = _hub_proposal(conn, cfg, by_path, members, folder, today, taken)
            if p:
                taken.add(T.fold(p["action"]["path"]))
                out.append(p)
    return out


def _hub_proposal(conn, cfg, by_path, members, folder, today, taken: set[str]) -> dict | None:
    tags = Counter(t.lower() for m in members for t in json.loads(
        conn.execute("SELECT tags FROM notes WHERE path = ?", (m,)).fetchone()[0] or "[]")
        if t.lower() not in T.TYPE_WORDS and t.lower() not in ("journal", "moc", "hub"))
    top_tag = tags.most_common(1)[0] if tags else None
    names = [by_path[members[0]]["display_title"]]  # the group's most linked note names it
    if top_tag and top_tag[1] >= 2:
        names.append(top_tag[0].replace("/", " ").replace("-", " ").title())
    for name in names:
        try:
            name = M.safe_filename(f"{name} MOC")
        except MemoryPluginError:
            continue
        path = f"{folder}/{name}.md" if folder else f"{name}.md"
        # a note of that name, or another proposal of it, would make this one a duplicate hub
        if not M.same_name(conn, name) and not (cfg.vault / path).exists() and T.fold(path) not in taken:
            break
    else:
        return None
    shown = members[:15]
    lines = ["---", "type: hub", f"summary: {propedit.render(f'Hub for {len(members)} related notes, starting with ' + by_path[members[0]]['display_title'] + '.')}",
             f"created: {today.isoformat()}", "---", f"# {name}", ""]
    lines += [f"- [[{M.link_name(conn, m)}]]" for m in shown]
    return {"kind": "no-hub", "title": f"{len(members)} linked notes around {by_path[members[0]]['display_title']} "
                                      f"have no hub note", "notes": shown, "score": len(members),
            "action": {"op": "create", "path": path, "text": "\n".join(lines) + "\n"},
            "suggestion": f"create {path} linking its members"}


def _superseded_linked(cfg, conn, by_path, successors: dict) -> list[dict]:
    out = []
    for old, n in sorted(by_path.items()):
        if L.shown_status(n["status"], old in successors) != "superseded":
            continue
        succ = set(successors.get(old, ()))
        current = []
        for src, line, prop, kind in conn.execute("SELECT src, line, prop, kind FROM links WHERE target = ? AND src != ?",
                                                  (old, old)):
            s = by_path.get(src)
            if not s or src in succ or s["type"] == "journal" or L.historical(s["status"], src in successors):
                continue
            if kind == "property" and prop in (*L.SUPERSESSION, "contradicts"):
                continue
            text = _line(cfg, src, line)
            if text is not None and _PAST_RE.search(text):
                continue
            current.append(src)
        if current:
            succ_s = ", ".join(sorted(f"[[{by_path[s]['title']}]]" for s in succ if s in by_path)) or "its successor"
            out.append({"kind": "superseded-linked", "title": f"{old} is superseded but linked as current from "
                                                              f"{', '.join(sorted(set(current))[:5])}",
                        "notes": [old, *sorted(set(current))], "action": None,
                        "suggestion": f"point those links to {succ_s}, or mark them (superseded)"})
    return out


def _line(cfg, rel: str, line: int | None) -> str | None:
    if not line:
        return None
    try:
        with open(os.path.join(cfg.vault, rel), encoding="utf-8-sig", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    return text
    except OSError:
        return None
    return None


# ---------------------------------------------------------------- rendering and applying

def render(props: list[dict], per_kind: int) -> str:
    if not props:
        return "Nothing to reorganize: no duplicates, orphans, dangling links or stale memories.\n"
    out = []
    for kind, title in KIND_TITLES.items():
        group = [p for p in props if p["kind"] == kind]
        if not group:
            continue
        safe = sum(1 for p in group if p["action"])
        out.append(f"## {title} ({len(group)}{f', {safe} appliable' if safe else ''})")
        for p in group[:per_kind]:
            mark = "apply" if p["action"] else "by hand"
            reasons = f" [{'; '.join(p['reasons'])}]" if p.get("reasons") else ""
            out.append(f"[{p['id']}] {p['title']}{reasons}")
            out.append(f"     {mark}: {p['suggestion']}")
        if len(group) > per_kind:
            out.append(f"     … {len(group) - per_kind} more (--limit N or --json to see them)")
        out.append("")
    out.append("Apply with: memory-plugin reorganize --apply ID [ID ...] (add --dry-run to see the diff first)")
    return "\n".join(out) + "\n"


def parse_ids(raw: tuple[str, ...] | list[str], props: list[dict]) -> list[int]:
    ids = []
    for chunk in raw:
        for part in str(chunk).replace(",", " ").split():
            if not part.isdigit():
                raise ReorganizeError(f"proposal id `{part}` is not a number: use the numbers `reorganize` lists")
            ids.append(int(part))
    known = {p["id"] for p in props}
    bad = [i for i in ids if i not in known]
    if bad:
        raise ReorganizeError(f"no proposal {', '.join(map(str, bad))} (there are {len(props)}): "
                              "run `memory-plugin reorganize` again to see the current numbers")
    return list(dict.fromkeys(ids))


def apply(cfg: Config, props: list[dict], ids: list[int], dry_run: bool = False,
          echo: Callable[[str], Any] | None = None) -> list[dict]:
    """Apply the chosen proposals' safe actions, printing each change before it is made."""
    say = echo or (lambda s: None)
    by_id = {p["id"]: p for p in props}
    results = []
    for i in ids:
        p = by_id[i]
        act = p["action"]
        if not act:
            say(f"[{i}] skipped: no safe automatic change; {p['suggestion']}")
            results.append({"id": i, "kind": p["kind"], "applied": False, "reason": "needs a person"})
            continue
        if act["op"] == "create":
            full = M.inside_vault(cfg, act["path"])
            say(f"[{i}] {'would create' if dry_run else 'creating'} {act['path']}")
            say(propedit.diff(act["path"], "", act["text"]).rstrip("\n"))
            if not dry_run:
                with M.vault_lock(cfg):
                    if full.exists():
                        say(f"[{i}] skipped: {act['path']} appeared meanwhile")
                        results.append({"id": i, "kind": p["kind"], "applied": False, "reason": "exists"})
                        continue
                    atomic_write(full, act["text"])
                M._reindex(cfg, [act["path"]])  # outside the vault lock
            results.append({"id": i, "kind": p["kind"], "applied": not dry_run, "path": act["path"]})
        elif act["op"] == "set_props":
            changes = [(k, v) for k, v in act["changes"]]
            say(f"[{i}] {'would set' if dry_run else 'setting'} " + ", ".join(f"{k}: {propedit.render(v)}" for k, v in changes)
                + f" in {act['path']}")
            res = M.edit_notes(cfg, {act["path"]: lambda _p, c=changes: c}, dry_run=dry_run)
            say(res[0]["diff"].rstrip("\n"))
            results.append({"id": i, "kind": p["kind"], "applied": not dry_run, "path": act["path"],
                            "diff": res[0]["diff"]})
    return results
