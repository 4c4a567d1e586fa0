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

from . import memory as M
from . import propedit, textutil as T
from .config import Config
from .errors import MemoryPluginError
from .fsutil import atomic_write

KIND_TITLES = {
    "duplicate": "Possible duplicates", "dangling": "Dangling links", "orphan": "Orphans",
    "stale": "Memories below the prune threshold", "contradiction": "Contradictions left open",
    "missing-summary": "Notes without a summary", "no-hub": "Communities without a hub note",
    "superseded-linked": "Superseded notes still linked as current",
}
MEMORY_KINDS = {"decision", "pitfall", "pattern", "learning", "convention"}
_PAST_RE = re.compile(r"supersed|replaced|deprecated|histor|previous|\bold\b|\bwas\b|archive", re.I)


class ReorganizeError(MemoryPluginError):
    pass


def _rows(conn, sql, args=()):
    cur = conn.execute(sql, args)
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def proposals(cfg: Config, conn: sqlite3.Connection, today: _dt.date | None = None,
              communities: bool = True) -> list[dict]:
    """Every proposal, numbered from 1 in a stable order (kind, then path)."""
    today = today or _dt.date.today()
    notes = _rows(conn, "SELECT n.path, n.title, n.display_title, n.type, n.status, n.summary, n.props, n.created, "
                        "n.hash, n.folder, f.body FROM notes n JOIN fts f ON f.rowid = n.id "
                        "WHERE n.private = 0 AND n.skipped = 0")
    for n in notes:
        n["props"] = json.loads(n["props"] or "{}")
    by_path = {n["path"]: n for n in notes}
    out: list[dict] = []
    out += _duplicates(notes)
    out += _dangling(conn, by_path)
    out += [{"kind": "orphan", "title": f"{o['path']} has no links in or out", "notes": [o["path"]],
             "action": None, "suggestion": "link it from a hub or a related note, or leave it be"}
            for o in _orphans(conn) if o["path"] in by_path]
    out += _stale(cfg, conn, notes, today)
    out += _contradictions(conn, by_path)
    out += _missing_summaries(notes, cfg)
    if communities:
        out += _no_hub(cfg, conn, by_path, today)
    out += _superseded_linked(cfg, conn, by_path)
    for i, p in enumerate(out, 1):
        p["id"] = i
    return out


def _orphans(conn):
    from .graph import orphans

    return orphans(conn)


def _duplicates(notes: list[dict]) -> list[dict]:
    pool = [n for n in notes if n["type"] not in ("journal", "hub")]
    index: dict[str, list[int]] = defaultdict(list)
    for i, n in enumerate(pool):
        for w in set(T.words(n["display_title"] + " " + n["title"])) - T.STOPWORDS:
            index[w].append(i)
    pairs: set[tuple[int, int]] = set()
    for ids in index.values():
        if len(ids) <= 30:
            pairs |= {(a, b) for k, a in enumerate(ids) for b in ids[k + 1:]}
    by_hash: dict[str, list[int]] = defaultdict(list)
    for i, n in enumerate(pool):
        by_hash[n["hash"]].append(i)
    for ids in by_hash.values():
        pairs |= {(a, b) for k, a in enumerate(ids) for b in ids[k + 1:]}
    out = []
    for a, b in sorted(pairs):
        x, y = pool[a], pool[b]
        best = max((M.similarity({"title": tx, "type": x["type"], "text": f"{x['summary']} {x['body']}"},
                                 {"title": ty, "type": y["type"], "text": f"{y['summary']} {y['body']}"})
                    for tx in {x["title"], x["display_title"]} for ty in {y["title"], y["display_title"]}),
                   key=lambda s: s[0])
        if x["hash"] == y["hash"]:
            best = (1.0, ["identical content"])
        if M.is_duplicate(*best, strict=True):
            p1, p2 = sorted((x["path"], y["path"]))
            out.append({"kind": "duplicate", "title": f"{p1} and {p2} look alike", "notes": [p1, p2],
                        "score": best[0], "reasons": best[1], "action": None,
                        "suggestion": f"merge by hand, or `memory-plugin supersede '{p1}' '{p2}'`"})
    out.sort(key=lambda p: (-p["score"], p["notes"]))
    return out


def _dangling(conn, by_path: dict) -> list[dict]:
    from .graph import dangling

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
    parts = [s for s in target.replace("\\", "/").split("/") if s]
    if not parts or any(s in (".", "..") or s.startswith(".") for s in parts):
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


def _stale(cfg, conn, notes, today) -> list[dict]:
    uses = dict(conn.execute("SELECT path, hits FROM usage"))
    out = []
    for n in notes:
        if n["type"] not in MEMORY_KINDS and "confidence" not in n["props"]:
            continue
        if (n["status"] or "") in M.HISTORICAL:
            continue
        c = M.confidence(cfg, n["props"], n["created"], uses.get(n["path"], 0), today)
        if c["effective"] < cfg.prune_threshold:
            out.append({"kind": "stale", "title": f"{n['path']}: confidence {c}", "notes": [n["path"]],
                        "score": c["effective"],
                        "action": {"op": "set_props", "path": n["path"], "changes": [["status", "stale"]]},
                        "suggestion": f"mark it stale, or `memory-plugin validate '{n['path']}'` if it still holds"})
    out.sort(key=lambda p: (p["score"], p["notes"]))
    return out


def _contradictions(conn, by_path) -> list[dict]:
    out = []
    for src, target in conn.execute("SELECT DISTINCT src, target FROM links WHERE kind = 'property' AND "
                                    "prop = 'contradicts' AND target IS NOT NULL ORDER BY src, target"):
        a, b = by_path.get(src), by_path.get(target)
        if not a or not b:
            continue
        if (a["status"] or "") in M.HISTORICAL or (b["status"] or "") in M.HISTORICAL:
            continue
        out.append({"kind": "contradiction", "title": f"{src} contradicts {target}; both are current",
                    "notes": [src, target], "action": None,
                    "suggestion": f"decide which holds: `memory-plugin supersede '{target}' '{src}'` (or the reverse)"
                                  " or `retract` one"})
    return out


def _missing_summaries(notes, cfg) -> list[dict]:
    out = []
    for n in sorted(notes, key=lambda n: n["path"]):
        if n["type"] == "journal" or "summary" in n["props"] or "description" in n["props"]:
            continue
        derived = n["summary"] or ""
        action = ({"op": "set_props", "path": n["path"], "changes": [["summary", derived]]} if derived else None)
        out.append({"kind": "missing-summary", "title": f"{n['path']} has no summary property",
                    "notes": [n["path"]], "action": action,
                    "suggestion": (f"add summary: {derived!r} (from its first paragraph)" if derived
                                   else "write a one-line summary property")})
    return out


def _no_hub(cfg, conn, by_path, today) -> list[dict]:
    from . import graphdata

    try:
        comms = graphdata.communities(graphdata.load(conn))
    except Exception:  # a graph that networkx cannot partition yields no proposal, not an error
        return []
    folder = next((f.strip("/") for f in cfg.hub_folders if f.strip("/")), None)
    if folder is None:
        folder = "Maps" if (cfg.vault / "Maps").is_dir() else ""
    out = []
    for cm in comms:
        if cm["has_hub"]:
            continue
        members = [m for m in cm["members"] if m in by_path]
        if len(members) < 3:
            continue
        tags = Counter(t.lower() for m in members for t in json.loads(
            conn.execute("SELECT tags FROM notes WHERE path = ?", (m,)).fetchone()[0] or "[]")
            if t.lower() not in T.TYPE_WORDS and t.lower() not in ("journal", "moc", "hub"))
        top_tag = tags.most_common(1)[0] if tags else None
        name = (top_tag[0].replace("/", " ").replace("-", " ").title() if top_tag and top_tag[1] >= 2
                else by_path[members[0]]["display_title"])
        try:
            name = M.safe_filename(f"{name} MOC")
        except MemoryPluginError:
            continue
        path = f"{folder}/{name}.md" if folder else f"{name}.md"
        exists = (cfg.vault / path).exists() or conn.execute("SELECT 1 FROM files WHERE lower(path) = ?",
                                                              (path.lower(),)).fetchone()
        shown = members[:15]
        lines = ["---", "type: hub", f"summary: {propedit.render(f'Hub for {len(members)} related notes, starting with ' + by_path[members[0]]['display_title'] + '.')}",
                 f"created: {today.isoformat()}", "---", f"# {name}", ""]
        lines += [f"- [[{M.link_name(conn, m)}]]" for m in shown]
        action = None if exists else {"op": "create", "path": path, "text": "\n".join(lines) + "\n"}
        out.append({"kind": "no-hub", "title": f"{len(members)} linked notes around {by_path[members[0]]['display_title']} "
                                               f"have no hub note", "notes": shown, "score": len(members),
                    "action": action, "suggestion": f"create {path} linking its members" if action else
                    f"{path} exists: link the members from it by hand"})
    return out


def _superseded_linked(cfg, conn, by_path) -> list[dict]:
    out = []
    for old, n in sorted(by_path.items()):
        if (n["status"] or "") != "superseded":
            continue
        succ = {r[0] for r in conn.execute("SELECT src FROM links WHERE kind='property' AND prop='supersedes' AND target=?",
                                           (old,))}
        succ |= {r[0] for r in conn.execute("SELECT target FROM links WHERE src=? AND kind='property' AND "
                                            "prop='superseded_by' AND target IS NOT NULL", (old,))}
        current = []
        for src, line, prop, kind in conn.execute("SELECT src, line, prop, kind FROM links WHERE target = ? AND src != ?",
                                                  (old, old)):
            s = by_path.get(src)
            if not s or src in succ or s["type"] == "journal" or (s["status"] or "") in M.HISTORICAL:
                continue
            if kind == "property" and prop in ("supersedes", "superseded_by", "contradicts"):
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
                    M._reindex(cfg, [act["path"]])
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
