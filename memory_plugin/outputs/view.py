"""graph.html: one self-contained page that draws the vault graph.

The page is `view_template.html` with the data inlined as JSON: no CDN, no fetch, nothing loaded
at run time, so it opens from file:// anywhere. The data is read straight from the index with SQL
(no networkx), so `memory-plugin view` and a rebuild write the same bytes, and fast.

Privacy: private notes are left out entirely. Links from them are never read, links to them are
dropped, and tags, unresolved targets and attachments that only private notes use never appear.
Excluded folders are never indexed, so they cannot appear either.

The repository files notes cite are nodes of their own kind (FILE, labelled by their path), with a
"cites" edge from each citing note; drawn beside the notes that cite them (or found by search),
never among the entry points.

A vault of more than LABEL_ALL_MAX notes opens on its entry points: the hubs the brief lists
(index/graph.py hubs(), which never returns a private note), every one labelled; the reader grows
the view from there (a click adds a note's neighbours, search adds any note) or switches to the
whole graph.
"""
from __future__ import annotations

import json
import re
import sqlite3
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.config import Config

HTML = "graph.html"
TEMPLATE = "view_template.html"
DATA_MARK = "/*__GRAPH_DATA__*/"
TITLE_MARK = "__GRAPH_TITLE__"
SUMMARY_CHARS = 220
PROP_CHARS = 200
# Shown in their own place in the side panel, so not repeated under "properties".
OWN_PLACE = {"title", "aliases", "alias", "tags", "tag", "summary", "description", "type", "status",
             "project", "private", "cssclasses"}
NOTE, TAG, UNRESOLVED, ATTACHMENT, FILE = 0, 1, 2, 3, 4  # FILE: a repository file notes cite
HUB, SUPERSEDED, RETRACTED = 1, 2, 4
WIKILINK = re.compile(r"\[\[([^\[\]|#^\n]*+)([^\[\]\n]*+)\]\]")  # linear: no rescans, no backtracking
SCRUB_DEPTH = 8  # property values nested deeper are shown as "…"
# Up to this many nodes drawn, every node is labelled and the layout keeps labels apart; a vault of
# more notes opens on its entry points instead of the whole graph (whose labels could not all fit).
LABEL_ALL_MAX = 120
_SPAN = 1 << 32  # node numbers are below this (an edge packs two of them and its type in one int)
_TYPES = 1 << 16  # edge types are below this (build_data unpacks with shifts by 16 and 48)


def _clip(s: str | None, n: int) -> str:
    return _cut(" ".join((s or "").split()), n)


def _cut(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _scrub(value: Any, hidden: set[str], depth: int = 0) -> Any:
    """Props and summaries with every mention of a private note they link to replaced (as a
    wikilink, or as the plain text a summary keeps of one), and long strings clipped. Depth-bounded:
    a value nested deeper than SCRUB_DEPTH is shown as "…"."""
    if depth > SCRUB_DEPTH and isinstance(value, (list, dict)):
        return "…"
    if isinstance(value, str):
        if hidden:
            value = WIKILINK.sub(lambda m: "[[private note]]" if m.group(1).strip().lower() in hidden
                                 else m.group(0), value)
            for name in sorted(hidden, key=len, reverse=True):
                value = re.sub(re.escape(name), "(private note)", value, flags=re.I)
        return _clip(value, PROP_CHARS)
    if isinstance(value, list):
        return [_scrub(v, hidden, depth + 1) for v in value[:50]]
    if isinstance(value, dict):
        return {str(k): _scrub(v, hidden, depth + 1) for k, v in list(value.items())[:50]}
    return value


class _Table:
    """Interned strings: the page gets each type, folder, project, status and edge type once."""

    def __init__(self):
        self.items: list[str] = []
        self.pos: dict[str, int] = {}

    def __call__(self, s: str | None) -> int:
        if s is None or s == "":
            return -1
        if s not in self.pos:
            self.pos[s] = len(self.items)
            self.items.append(s)
        return self.pos[s]


def build_data(cfg: Config, conn: sqlite3.Connection) -> dict:
    """Everything the page needs, as compact columns; private notes absent."""
    from ..index.graph import edge_type, hubs, unresolved_id

    types, folders, projects, statuses, etypes = _Table(), _Table(), _Table(), _Table(), _Table()
    for t in ("hub", "convention", "decision", "pitfall", "pattern", "learning", "concept", "journal"):
        types(t)
    cols: dict[str, list] = {k: [] for k in ("id", "k", "t", "ty", "f", "p", "st", "fl", "a", "s")}
    index: dict[str, int] = {}

    # bound once: add() runs for every node
    (a_id, a_k, a_t, a_ty, a_f, a_p, a_st, a_fl, a_a, a_s) = [c.append for c in cols.values()]

    def add(node_id: str, kind: int, title: str, ty=-1, f=-1, p=-1, st=-1, fl=0, aliases=(), summary=""):
        i = index[node_id] = len(cols["id"])
        a_id(node_id)
        a_k(kind)
        a_t(title)
        a_ty(ty)
        a_f(f)
        a_p(p)
        a_st(st)
        a_fl(fl)
        a_a(list(aliases))
        a_s(summary)
        return i

    private = {r[0] for r in conn.execute("SELECT path FROM notes WHERE private = 1")}
    hidden_names: dict[str, set[str]] = {}
    if private:
        for src, linkpath, display, target in conn.execute("SELECT src, linkpath, display, target FROM links"):
            if target in private and src not in private:
                names = hidden_names.setdefault(src, set())
                for name in (linkpath, linkpath.rsplit("/", 1)[-1], display):
                    if name and name.strip():
                        names.add(name.strip().lower())
    props: dict[int, dict] = {}
    no_names: set[str] = set()
    kinds, fls = cols["k"], cols["fl"]
    loads = json.loads
    n_notes = 0  # read row by row: at 100k notes the rows held at once were ~100 MB of the peak
    for path, dtitle, title, typ, status, project, summary, hub, folder, aliases, prop_json in conn.execute(
            "SELECT path, display_title, title, type, status, project, summary, hub, folder, "
            "aliases, props FROM notes WHERE private = 0 ORDER BY path"):
        n_notes += 1
        hidden = hidden_names.get(path, no_names) if hidden_names else no_names
        fl = HUB if hub else 0
        if status:
            st = status.lower()
            fl |= (SUPERSEDED if st == "superseded" else 0) | (RETRACTED if st == "retracted" else 0)
        short = _clip(summary, SUMMARY_CHARS)
        # _scrub with no private note to hide is _clip to PROP_CHARS, and `short`'s spaces are single already
        i = add(path, NOTE, dtitle or title or path, types(typ or "note"), folders(folder or ""),
                projects(project), statuses(status), fl, loads(aliases) if aliases and aliases != "[]" else (),
                _scrub(short, hidden) if hidden else _cut(short, PROP_CHARS))
        if not prop_json or prop_json == "{}":
            continue
        p = {k: v for k, v in loads(prop_json).items() if k.lower() not in OWN_PLACE}
        if p:
            props[i] = _scrub(p, hidden)

    attachments = {r[0] for r in conn.execute("SELECT path FROM files WHERE is_note = 0")}
    # An edge is one int, (source * n + target) * EDGE_TYPES + type, not a tuple of three: a dict
    # key each, in first-seen order (the page's order), at a third of the memory.
    edges: dict[int, None] = {}
    n_links = 0
    etype_of: dict[tuple[str, str | None], int] = {}  # (kind, prop) -> edge type, once each
    index_get = index.get
    last_src, s = None, None
    for src, kind, prop, linkpath, target in conn.execute(
            "SELECT src, kind, prop, linkpath, target FROM links ORDER BY src, line"):
        if src != last_src or s is None:  # links come grouped by source
            last_src, s = src, index_get(src)
        if s is None or (private and target in private):  # from a private note, or to one
            continue
        n_links += 1
        if target is None:
            nid = unresolved_id(linkpath)
            t = index_get(nid)
            if t is None:
                t = add(nid, UNRESOLVED, linkpath)
        else:
            t = index_get(target)
            if t is None:
                if target in attachments:
                    t = add(target, ATTACHMENT, target.rsplit("/", 1)[-1])
                else:
                    continue
        if s != t:
            ty = etype_of.get((kind, prop))
            if ty is None:
                ty = etype_of[(kind, prop)] = etypes(edge_type(kind, prop))
            edges[(s * _SPAN + t) * _TYPES + ty] = None
    for path, tag in conn.execute("SELECT path, tag_lc FROM tags ORDER BY tag_lc, path"):
        s = index_get(path)
        if s is None:
            continue
        name = tag
        t = index_get(f"tag:{name}")
        if t is None:
            t = add(f"tag:{name}", TAG, "#" + name)
            while "/" in name:  # the tag hierarchy, as graph.build_graph draws it
                parent = name.rsplit("/", 1)[0]
                pt = index.get(f"tag:{parent}")
                if pt is None:
                    pt = add(f"tag:{parent}", TAG, "#" + parent)
                edges[(index[f"tag:{name}"] * _SPAN + pt) * _TYPES + etypes("subtag_of")] = None
                name = parent
        edges[(s * _SPAN + t) * _TYPES + etypes("tagged")] = None
    # the repository files notes cite (graphdata.cited_files), after every other node: a "cites" edge each
    from .graphdata import CITES, cited_files

    cf = cited_files(conn)
    first_file = len(cols["id"])
    for fid, path, project in zip(cf.ids, cf.paths, cf.projects):
        add(fid, FILE, path, p=projects(project))
    if cf.cites:
        cites = etypes(CITES)
        for note, k in cf.cites:
            s = index_get(note)
            if s is not None:
                edges[(s * _SPAN + first_file + k) * _TYPES + cites] = None
    flat = []
    extend = flat.extend
    sup = etypes.pos.get("supersedes")
    for e in edges:  # both are powers of two: shifts and masks, not divmod calls
        ty = e & (_TYPES - 1)
        t = (e >> 16) & (_SPAN - 1)
        s = e >> 48
        extend((s, t, ty))
        if ty == sup and kinds[t] == NOTE:  # what something supersedes is superseded
            fls[t] |= SUPERSEDED
    del edges
    return {
        "meta": {"vault": cfg.vault.name if cfg.vault else "", "notes": n_notes, "links": n_links,
                 "tags": sum(1 for k in cols["k"] if k == TAG),
                 "unresolved": sum(1 for k in cols["k"] if k == UNRESOLVED),
                 "attachments": sum(1 for k in cols["k"] if k == ATTACHMENT),
                 "files": len(cf.ids),
                 "max_nodes": cfg.html_max_nodes, "label_all": LABEL_ALL_MAX, "updated": _updated(conn)},
        "types": types.items, "folders": folders.items, "projects": projects.items,
        "statuses": statuses.items, "etypes": etypes.items,
        "nodes": cols, "edges": flat, "props": props,
        "initial": initial_subset(cols, flat, n_notes, cfg.html_max_nodes, cfg.hub_count,
                                  journal=types.pos.get("journal")),
        # the entry points, in the brief's order (private notes are never among them, nor in `index`)
        "entry": [index[h["path"]] for h in hubs(conn, cfg.hub_count) if h["path"] in index],
    }


def _updated(conn: sqlite3.Connection) -> float:
    row = conn.execute("SELECT value FROM meta WHERE key IN ('changed_at', 'built_at') "
                       "ORDER BY key = 'changed_at' DESC LIMIT 1").fetchone()
    try:
        return float(row[0]) if row else 0.0
    except ValueError:
        return 0.0


def initial_subset(cols: dict, flat: list[int], n_notes: int, max_nodes: int, hub_count: int,
                   journal: int | None) -> list[int]:
    """The notes drawn when the page opens: all of them in a small vault; else hubs (authored first,
    then by degree, journal never) and their best-linked neighbours, within the node budget. Notes
    are the first `n_notes` rows."""
    if n_notes <= max_nodes:
        return list(range(n_notes))
    budget = max(1, int(max_nodes * 0.85))  # room for unresolved targets, attachments, tags and files
    nbrs: list[set[int]] = [set() for _ in range(n_notes)]
    for j in range(0, len(flat), 3):
        s, t = flat[j], flat[j + 1]
        if s < n_notes and t < n_notes:
            nbrs[s].add(t)
            nbrs[t].add(s)
    deg = [len(x) for x in nbrs]
    ranked = sorted((i for i in range(n_notes) if cols["ty"][i] != journal),
                    key=lambda i: (not cols["fl"][i] & HUB, -deg[i], cols["id"][i]))
    seeds = [i for i in ranked if cols["fl"][i] & HUB or deg[i] > 0][:max(hub_count, budget // 25)]
    chosen = dict.fromkeys(seeds[:budget])
    per_seed = max(1, (budget - len(chosen)) // max(1, len(seeds)))
    for s in seeds:
        for t in sorted(nbrs[s] - chosen.keys(), key=lambda i: (-deg[i], cols["id"][i]))[:per_seed]:
            if len(chosen) >= budget:
                break
            chosen[t] = None
    for i in ranked:  # room left: the next best-linked notes
        if len(chosen) >= budget:
            break
        chosen.setdefault(i, None)
    return sorted(chosen)


def _blob(o) -> str:
    """JSON with `<` escaped, so that no note title can close the script element (and the two
    line separators JavaScript treats as line ends)."""
    blob = json.dumps(o, ensure_ascii=False, separators=(",", ":"), default=str)
    return blob.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _pieces(data: dict):
    """The JSON of `data` piece by piece (each column on its own), the same text json.dumps gives:
    a big vault's page is written without one string of all of it."""
    yield "{"
    for i, (k, v) in enumerate(data.items()):
        yield ("," if i else "") + _blob(k) + ":"
        if isinstance(v, dict) and k == "nodes":
            yield "{"
            for j, (k2, v2) in enumerate(v.items()):
                yield ("," if j else "") + _blob(k2) + ":" + _blob(v2)
            yield "}"
        else:
            yield _blob(v)
    yield "}"


def _page(data: dict):
    """The page: the template with the data inlined."""
    template = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    title = (data["meta"]["vault"] or "vault").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    head, _, tail = template.partition(DATA_MARK)
    yield head.replace(TITLE_MARK, title)
    yield from _pieces(data)
    yield tail


def write_html(cfg: Config, conn: sqlite3.Connection, out: str | Path | None = None) -> Path:
    """Write graph.html (or `out`) from the index: built from SQL, so every caller writes the same bytes."""
    from ..core.fsutil import atomic_stream

    path = Path(out) if out else cfg.path(HTML)
    data = build_data(cfg, conn)
    with atomic_stream(path) as f:
        for piece in _page(data):
            f.write(piece)
    return path
