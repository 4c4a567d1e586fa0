"""The knowledge graph: SQL views over the index for the fast paths, networkx for `path`.

networkx is imported only inside the functions that need it (it costs ~150 ms to import);
communities and graph.json come from graphdata's compact arrays.
"""
from __future__ import annotations

import contextlib
import json
import sqlite3
from typing import Any

from ..core.config import Config
from ..core.errors import NoteNotFound
from ..core.sqlutil import rows_in

EDGE_TYPE = {"link": "links_to", "mdlink": "links_to", "embed": "embeds"}


def edge_type(kind: str, prop: str | None) -> str:
    return prop if kind == "property" and prop else EDGE_TYPE.get(kind, "links_to")


def tag_id(tag: str) -> str:
    return f"tag:{tag.lower()}"


def unresolved_id(linkpath: str) -> str:
    return f"unresolved:{linkpath.lower()}"


# ---------------------------------------------------------------- SQL helpers (no networkx)

def _rows(conn: sqlite3.Connection, sql: str, args=()) -> list[dict]:
    cur = conn.execute(sql, args)
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


_degrees_memo: dict | None = None  # while outputs are written: (generation, changed_at) -> degrees


def degrees(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """path -> (distinct notes linking in, distinct notes linked out); self links and links from
    journal notes left out. Links are read in source order, so the distinct targets of one source
    are one small set at a time (no set of every pair). Within `memo_degrees()` the result is kept
    for the index state it was read from (the report and the brief both rank hubs by it)."""
    key = None
    if _degrees_memo is not None:
        key = tuple(r[0] for r in conn.execute(
            "SELECT value FROM meta WHERE key IN ('generation', 'changed_at') ORDER BY key"))
        if key in _degrees_memo:
            return _degrees_memo[key]
    journal = {p for (p,) in conn.execute("SELECT path FROM notes WHERE type = 'journal'")}
    notes = {p for (p,) in conn.execute("SELECT path FROM files WHERE is_note = 1")}
    inn: dict[str, int] = {}
    out: dict[str, int] = {}

    def count(src: str, targets: set[str]) -> None:
        from_journal = src in journal
        n = 0
        for t in targets:
            if not from_journal:
                inn[t] = inn.get(t, 0) + 1
            if t in notes:
                n += 1
        if n:
            out[src] = n

    src, targets = None, set()
    for s, t in conn.execute("SELECT src, target FROM links WHERE target IS NOT NULL AND src != target "
                             "ORDER BY src"):
        if s != src:
            if src is not None:
                count(src, targets)
            src, targets = s, set()
        targets.add(t)
    if src is not None:
        count(src, targets)
    result = {p: (inn.get(p, 0), out.get(p, 0)) for p in inn.keys() | out.keys()}
    if key is not None:
        _degrees_memo.clear()
        _degrees_memo[key] = result
    return result


@contextlib.contextmanager
def memo_degrees():
    """Keep `degrees` for the index state it was read from, while the outputs are written."""
    global _degrees_memo
    outer = _degrees_memo
    _degrees_memo = {} if outer is None else outer
    try:
        yield
    finally:
        _degrees_memo = outer


def note_degree(conn: sqlite3.Connection, path: str) -> tuple[int, int]:
    """One note's (in, out) degree, counted the way `degrees` counts it."""
    i = conn.execute("SELECT count(DISTINCT l.src) FROM links l JOIN notes s ON s.path = l.src "
                     "WHERE l.target = ? AND l.src != ? AND s.type != 'journal'", (path, path)).fetchone()[0]
    o = conn.execute("SELECT count(DISTINCT l.target) FROM links l JOIN files f ON f.path = l.target "
                     "WHERE l.src = ? AND f.is_note = 1 AND l.target != l.src", (path,)).fetchone()[0]
    return i, o


def hubs(conn: sqlite3.Connection, limit: int, include_private: bool = False) -> list[dict]:
    """Authored hubs first, then notes by link degree; journal notes never count. The order is
    decided on (path, hub, private) alone; only the `limit` notes shown are read whole (at 100k
    notes the whole rows of all of them were most of the brief's time and memory)."""
    deg = degrees(conn)
    ranked = []
    for path, hub, private in conn.execute(
            "SELECT path, hub, private FROM notes WHERE type != 'journal' AND skipped = 0"):
        d = deg.get(path, (0, 0))
        if (include_private or not private) and (hub or d[0] + d[1] > 0):
            ranked.append((-hub, -(d[0] + d[1]), path))
    ranked.sort()
    chosen = [p for _, _, p in ranked[:limit]]
    full: dict[str, dict] = {}
    cols = ("path", "title", "display_title", "type", "summary", "hub", "private", "project")
    for r in rows_in(conn, f"SELECT {', '.join(cols)} FROM notes WHERE path IN ({{in}})", chosen):
        full[r[0]] = dict(zip(cols, r))
    out = []
    for p in chosen:
        r = full[p]
        i, o = deg.get(p, (0, 0))
        r["in_degree"], r["out_degree"], r["degree"] = i, o, i + o
        out.append(r)
    return out


def conventions(conn: sqlite3.Connection, include_private: bool = False, limit: int = -1) -> list[dict]:
    rows = _rows(conn, "SELECT path, title, display_title, summary, status, tags, private FROM notes "
                       "WHERE type = 'convention'" + ("" if include_private else " AND private = 0") +
                       " ORDER BY display_title COLLATE NOCASE LIMIT ?", (limit,))
    for r in rows:
        r["tags"] = json.loads(r["tags"] or "[]")
    return [r for r in rows if include_private or not r["private"]]


def orphans(conn: sqlite3.Connection) -> list[dict]:
    return _rows(conn, """
        SELECT n.path, n.display_title, n.type FROM notes n
        WHERE n.type != 'journal' AND n.private = 0
          AND NOT EXISTS (SELECT 1 FROM links l JOIN files f ON f.path = l.target
                          WHERE l.src = n.path AND f.is_note = 1 AND l.target != n.path)
          AND NOT EXISTS (SELECT 1 FROM links l WHERE l.target = n.path AND l.src != n.path)
        ORDER BY n.path""")


def dangling(conn: sqlite3.Connection) -> list[dict]:
    """Unresolved link targets, grouped as graph.json groups them (Unicode case-insensitive), most
    linked first; links written in private notes are left out."""
    groups: dict[str, dict] = {}
    for linkpath, src in conn.execute(
            "SELECT linkpath, src FROM links WHERE target IS NULL AND src NOT IN "
            "(SELECT path FROM notes WHERE private = 1) ORDER BY linkpath"):
        g = groups.setdefault(unresolved_id(linkpath), {"target": linkpath, "count": 0, "from_notes": set()})
        g["count"] += 1
        g["from_notes"].add(src)
    rows = [{"target": g["target"], "count": g["count"], "sources": len(g["from_notes"]),
             "from_notes": sorted(g["from_notes"])} for g in groups.values()]
    rows.sort(key=lambda r: (-r["count"], r["target"].lower()))
    return rows


def private_paths(conn: sqlite3.Connection) -> set[str]:
    return {p for (p,) in conn.execute("SELECT path FROM notes WHERE private = 1")}


def ambiguous(conn: sqlite3.Connection) -> list[dict]:
    """Links whose name matches several files. One that resolves to a private note, or that is
    ambiguous only because a private note shares the name, is not listed: either would name it."""
    rows = _rows(conn, "SELECT src, linkpath, target, line FROM links WHERE ambiguous = 1 "
                       "ORDER BY src, line")
    private = private_paths(conn)
    if not private or not rows:
        return rows
    still = _ambiguous_without(conn, private)
    return [r for r in rows if r["target"] not in private and still(r["target"])]


def _ambiguous_without(conn: sqlite3.Connection, private: set[str]):
    """For the target of a link marked ambiguous: whether it still is when private notes are not
    counted (a name shared by one public file and private notes only is not)."""
    from ..vault.links import file_name_lc

    hidden_names = {file_name_lc(p) for p in private}
    public_count: dict[str, int] = {}
    for (p,) in conn.execute("SELECT path FROM files"):
        name = file_name_lc(p)
        if name in hidden_names and p not in private:
            public_count[name] = public_count.get(name, 0) + 1
    return lambda target: public_count.get(file_name_lc(target or ""), 2) >= 2


def warnings(conn: sqlite3.Connection) -> list[dict]:
    return _rows(conn, "SELECT path, kind, message FROM warnings ORDER BY path")


def find_note(conn: sqlite3.Connection, ref: str) -> str:
    """A note path from a path, a file name or a title, case-insensitively."""
    q = ref.strip().replace("\\", "/").lstrip("./")
    if not q:
        raise NoteNotFound("empty note name: give a path, a file name or a title")
    # SQLite's lower() folds ASCII only; notes named in Greek or German must match too, and a name
    # typed in another Unicode form (NFD "é" from macOS) is the same name.
    import unicodedata

    conn.create_function("ulower", 1, lambda v: unicodedata.normalize("NFC", v).lower() if isinstance(v, str)
                         else v, deterministic=True)
    ql = unicodedata.normalize("NFC", q).lower()
    for arg in (ql, ql + ".md"):
        hit = [r[0] for r in conn.execute("SELECT path FROM notes WHERE ulower(path) = ?", (arg,))]
        if len(hit) == 1:
            return hit[0]
    name = ql[:-3] if ql.endswith(".md") else ql
    suffix = f"/{name}.md"
    for sql, args in (("SELECT path FROM notes WHERE ulower(title) = ?", (name,)),
                      # a private note is found only by its file name or path, never by what it holds
                      ("SELECT path FROM notes WHERE ulower(display_title) = ? AND private = 0", (name,)),
                      ("SELECT a.path FROM aliases a JOIN notes n ON n.path = a.path "
                       "WHERE a.alias_lc = ? AND n.private = 0", (name,)),
                      ("SELECT path FROM notes WHERE substr(ulower(path), -?) = ?", (len(suffix), suffix))):
        hit = sorted({r[0] for r in conn.execute(sql, args)})
        if len(hit) > 1:
            # a private note is found only when the name is its alone: among several it is neither
            # listed nor counted, so the answer is what it would be if the note did not exist
            hidden = private_paths(conn)
            hit = [p for p in hit if p not in hidden]
        if len(hit) == 1:
            return hit[0]
        if len(hit) > 1:
            raise NoteNotFound(f"`{ref}` is ambiguous: {', '.join(hit[:10])}"
                               f"{' …' if len(hit) > 10 else ''}: give the path")
    raise NoteNotFound(f"no note called `{ref}` in the vault: try `memory-plugin search {ref!r}`")


def explain(conn: sqlite3.Connection, path: str) -> dict:
    from .store import note_row

    n = note_row(conn, path)
    if n is None:
        raise NoteNotFound(f"no note at {path}")
    if n["private"]:  # the user named it; nothing of what it holds is shown
        return {"path": path, "private": True}
    out_links = _rows(conn, "SELECT kind, prop, linkpath, subpath, target, line, ambiguous FROM links "
                            "WHERE src = ? ORDER BY line", (path,))
    private = private_paths(conn)
    still = _ambiguous_without(conn, private) if private else None
    for r in out_links:
        if r["target"] in private:  # the link resolves; where to is not shown
            r.update(target=None, ambiguous=0, private=True)
        elif r["ambiguous"] and still and not still(r["target"]):
            r["ambiguous"] = 0  # only a private namesake made it so: saying so would hint at it
    in_links = _rows(conn, "SELECT l.src, l.kind, l.prop, l.subpath, l.line FROM links l JOIN notes s "
                           "ON s.path = l.src WHERE l.target = ? AND l.src != ? AND s.private = 0 "
                           "ORDER BY l.src, l.line", (path, path))
    for group in (out_links, in_links):
        for r in group:
            r["type"] = edge_type(r.pop("kind"), r.pop("prop"))
    deg = note_degree(conn, path)
    return {"path": path, "title": n["title"], "display_title": n["display_title"], "type": n["type"],
            "status": n["status"], "project": n["project"], "summary": n["summary"],
            "aliases": n["aliases"], "tags": n["tags"], "properties": n["props"],
            "created": n["created"], "updated": n["updated"], "hub": bool(n["hub"]),
            "private": bool(n["private"]), "warnings": n["warnings"],
            "in_degree": deg[0], "out_degree": deg[1],
            "outgoing": out_links, "incoming": in_links}


def backlinks(conn: sqlite3.Connection, path: str) -> list[dict]:
    rows = _rows(conn, "SELECT l.src, s.display_title AS title, l.kind, l.prop, l.line, l.subpath FROM links l "
                       "JOIN notes s ON s.path = l.src WHERE l.target = ? AND l.src != ? AND s.private = 0 "
                       "ORDER BY l.src, l.line", (path, path))
    for r in rows:
        r["type"] = edge_type(r.pop("kind"), r.pop("prop"))
    return rows


# ---------------------------------------------------------------- networkx

def build_graph(conn: sqlite3.Connection):
    """The directed multigraph of the vault (parallel and reciprocal edges kept)."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for (path, title, dtitle, typ, status, project, summary, hub, private, folder, aliases, tags) in conn.execute(
            "SELECT path, title, display_title, type, status, project, summary, hub, private, folder, aliases,"
            " tags FROM notes ORDER BY path"):  # one order, so communities do not depend on history
        if private:  # only the fact that links to it resolve (graph.json shows it as an opaque id)
            g.add_node(path, kind="note", private=True)
            continue
        g.add_node(path, kind="note", title=title, display_title=dtitle, type=typ, status=status,
                   project=project, summary=summary, hub=bool(hub), folder=folder,
                   aliases=json.loads(aliases or "[]"), tags=json.loads(tags or "[]"))
    attachments = {r[0] for r in conn.execute("SELECT path FROM files WHERE is_note = 0")}
    for src, kind, prop, linkpath, subpath, target, line in conn.execute(
            "SELECT src, kind, prop, linkpath, subpath, target, line FROM links ORDER BY src, line"):
        if target is None:
            node = unresolved_id(linkpath)
            if node not in g:
                g.add_node(node, kind="unresolved", name=linkpath)
        else:
            node = target
            if node not in g:
                g.add_node(node, kind="attachment" if node in attachments else "note", title=node)
        g.add_edge(src, node, type=edge_type(kind, prop), subpath=subpath or "", line=line)
    for path, tag in conn.execute("SELECT path, tag FROM tags ORDER BY path, tag"):
        tid = tag_id(tag)
        if tid not in g:
            g.add_node(tid, kind="tag", name=tag.lower())
        g.add_edge(path, tid, type="tagged")
    for tid in [n for n, d in g.nodes(data=True) if d.get("kind") == "tag"]:
        name = g.nodes[tid]["name"]
        while "/" in name:
            parent = name.rsplit("/", 1)[0]
            pid = tag_id(parent)
            if pid not in g:
                g.add_node(pid, kind="tag", name=parent)
            if not g.has_edge(f"tag:{name}", pid):
                g.add_edge(f"tag:{name}", pid, type="subtag_of")
            name = parent
    return g


def shortest_path(conn: sqlite3.Connection, a: str, b: str) -> list[dict]:
    """Shortest chain of links between two notes, following links in either direction."""
    import networkx as nx

    g = build_graph(conn)
    # A private note is never a step on the way: only the two notes the user named may be private
    # (and a private note has no links of its own in the index).
    u = nx.Graph()
    u.add_nodes_from((a, b))
    u.add_edges_from((x, y) for x, y in g.edges() if not g.nodes[x].get("private") and
                     (not g.nodes[y].get("private") or y in (a, b)))
    try:
        nodes = nx.shortest_path(u, a, b)
    except nx.NetworkXNoPath:
        return []
    steps = []
    for x, y in zip(nodes, nodes[1:]):
        forward = g.has_edge(x, y) and not g.nodes[x].get("private")
        s, t = (x, y) if forward else (y, x)
        d = next(iter(g.get_edge_data(s, t).values()))
        steps.append({"from": x, "to": y, "type": d["type"], "direction": "->" if forward else "<-"})
    return steps
