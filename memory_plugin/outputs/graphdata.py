"""The vault graph as compact arrays read straight from the index: communities and graph.json.

A networkx MultiDiGraph of a 100k-note vault costs about a gigabyte (a dict per node, per
neighbour and per edge), and json.dumps of its node-link data as much again. Here notes are ints,
the note-to-note projection is one list of neighbour ints per note, and graph.json is streamed to
disk row by row from SQL. Both are exactly what graph.build_graph + networkx wrote before
(same nodes, edges, keys and order; tests/test_graphdata.py holds them side by side). networkx is
imported only for Louvain, on graphs small enough for it.

The repository files notes cite (the index's `anchors`) are nodes too, of kind "file", with a
"cites" edge from each citing note (cited_files). They join neither the note projection nor any
community, and index/graph.py (hubs, degrees) never reads them: a file is never a hub.
"""
from __future__ import annotations

import json
import os
import sqlite3
from array import array
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from ..index.graph import edge_type, tag_id, unresolved_id

LOUVAIN_MAX_NODES = 5000
MIN_COMMUNITY = 3
FILE_PREFIX = "file:"  # a cited file's node id: file:PATH, or file:PROJECT:PATH when its notes name a project
CITES = "cites"        # the edge type from a note to a file it cites

_LINKS = "SELECT src, kind, prop, linkpath, subpath, target, line FROM links ORDER BY src, line"


@dataclass
class NoteGraph:
    """Note-kind nodes (notes, then link targets that are notes without a row) as ints, in the
    order networkx added them; every other node networkx had, in its order; the undirected simple
    note-to-note graph (self links and journal notes left out), neighbours in insertion order."""
    ids: list[str] = field(default_factory=list)
    pos: dict[str, int] = field(default_factory=dict)
    hub: bytearray = field(default_factory=bytearray)
    journal: bytearray = field(default_factory=bytearray)
    private: bytearray = field(default_factory=bytearray)
    # private note path -> its opaque id in graph.json (`private:N`, in the order public notes first
    # link to it); a private note no public note links to is not in graph.json at all
    private_ids: dict[str, str] = field(default_factory=dict)
    name: dict[int, str] = field(default_factory=dict)      # display titles of public notes that differ from the path
    adj: list[list[int]] = field(default_factory=list)
    events: array = field(default_factory=lambda: array("i"))  # the distinct pairs, in the order first seen
    others: list[tuple[str, str, str]] = field(default_factory=list)  # (id, kind, name or title) after the notes
    tags: list[str] = field(default_factory=list)                      # tag names, in node order

    def add(self, node_id: str, hub: bool = False, journal: bool = False, private: bool = False) -> int:
        i = self.pos[node_id] = len(self.ids)
        self.ids.append(node_id)
        self.hub.append(hub)
        self.journal.append(journal)
        self.private.append(private)
        self.adj.append([])
        return i


def load(conn: sqlite3.Connection) -> NoteGraph:
    ng = NoteGraph()
    for path, dtitle, typ, hub, private in conn.execute(
            "SELECT path, display_title, type, hub, private FROM notes ORDER BY path"):
        i = ng.add(path, hub=bool(hub) and not private, journal=typ == "journal", private=bool(private))
        if not private and dtitle:
            ng.name[i] = dtitle
    attachments = {r[0] for r in conn.execute("SELECT path FROM files WHERE is_note = 0")}
    other_seen: set[str] = set()
    seen_pairs: set[int] = set()
    big = 1 << 32
    pos_get, private, journal, private_ids = ng.pos.get, ng.private, ng.journal, ng.private_ids
    adj, events = ng.adj, ng.events
    last_src, s = None, None
    # only the columns used, in _LINKS' order (ties in it as _edges reads them)
    for src, linkpath, target in conn.execute("SELECT src, linkpath, target FROM links ORDER BY src, line"):
        if target is None:
            node = unresolved_id(linkpath)
            if node not in other_seen:
                other_seen.add(node)
                ng.others.append((node, "unresolved", linkpath))
            continue
        t = pos_get(target)
        if t is None:
            if target in other_seen:
                continue
            if target in attachments:
                other_seen.add(target)
                ng.others.append((target, "attachment", target))
                continue
            t = ng.add(target)  # a note-kind node with no row (networkx: kind "note", title = path)
            ng.others.append((target, "note", target))
        if private[t] and target not in private_ids:
            private_ids[target] = f"private:{len(private_ids) + 1}"
        if src != last_src or s is None:  # links come grouped by source
            last_src, s = src, pos_get(src)
        # a private note belongs to no community: it neither joins one nor bridges two
        if s is None or s == t or journal[s] or journal[t] or private[s] or private[t]:
            continue
        key = s * big + t if s < t else t * big + s
        if key in seen_pairs:
            continue
        seen_pairs.add(key)
        adj[s].append(t)
        adj[t].append(s)
        events.append(s)
        events.append(t)
    del seen_pairs
    seen_tags: set[str] = set()
    for (tag,) in conn.execute("SELECT tag FROM tags ORDER BY path, tag"):
        name = tag.lower()
        if name not in seen_tags:
            seen_tags.add(name)
            ng.tags.append(name)
    for name in list(ng.tags):  # parents after every tag a note carries, as networkx added them
        while "/" in name:
            name = name.rsplit("/", 1)[0]
            if name not in seen_tags:
                seen_tags.add(name)
                ng.tags.append(name)
    return ng


# ---------------------------------------------------------------- files notes cite

@dataclass
class CitedFiles:
    """Repository files public notes cite, one node each (ordered by id), and the (note path, file
    number) pairs that cite them, by note path then file."""
    ids: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    projects: list[str | None] = field(default_factory=list)
    cites: list[tuple[str, int]] = field(default_factory=list)


def cited_files(conn: sqlite3.Connection) -> CitedFiles:
    """The files the index's anchors name, without a repository at hand (the pages are built from the
    index alone, so `view` and a rebuild write the same bytes anywhere). One node per file:
    - a file belongs to the project of the notes citing it (index/code.py same_project: notes of two
      projects citing `README.md` cite two files); a note naming no project may cite any
      repository, so its path joins the one project whose notes cite that file, else stands alone;
    - within a project, a path with a folder that ends another cited path at a folder boundary
      (`middleware/base.py`, `starlette/middleware/base.py`) is that file when only one longest path
      ends so, the way index/code.py matches a note's path to a repository file; a bare name
      (`base.py`, `README.md`) stays apart: it may be a top-level file.
    Symbol-only anchors name no file and are left out: a note citing exactly one file already has
    its edge to it, and one citing none has nothing to attach a symbol to without the repository.
    Private notes' anchors are not indexed; the join keeps them out even so."""
    from ..index.code import _norm_name  # how same_project compares project names

    rows = conn.execute(
        "SELECT DISTINCT a.path, a.file, n.project FROM anchors a JOIN notes n ON n.path = a.path "
        "WHERE a.file IS NOT NULL AND n.private = 0 ORDER BY a.path, a.file").fetchall()
    groups: dict[str, set[str]] = {}   # project key ("" none) -> paths its notes cite
    names: dict[str, str] = {}         # project key -> the project as the first note writes it
    for _, file, project in rows:
        key = _norm_name(project)
        groups.setdefault(key, set()).add(file)
        names.setdefault(key, project if key else "")
    tails = {key: _tail_owners(paths) for key, paths in groups.items()}

    def canonical(key: str, path: str) -> str | None:
        """The path of the node `path` is in project `key`, None when the project cites no such file."""
        owners = tails[key].get(path)
        if owners:
            longest = [q for q in owners if q not in tails[key]]  # no cited path ends them
            if len(longest) == 1:
                return longest[0]
        return path if path in groups[key] else None

    node_of: dict[tuple[str, str], tuple[str, str]] = {}  # (key, path as written) -> (key, node path)
    for key, paths in groups.items():
        for path in paths:
            if key:
                node_of[(key, path)] = (key, canonical(key, path) or path)
                continue
            found = [(k, c) for k in groups if k and (c := canonical(k, path)) is not None]
            node_of[(key, path)] = found[0] if len(found) == 1 else ("", canonical("", path) or path)
    nodes = sorted(set(node_of.values()), key=lambda kp: _file_id(kp[0], kp[1]))
    out = CitedFiles()
    number: dict[tuple[str, str], int] = {}
    for key, path in nodes:
        number[(key, path)] = len(out.ids)
        out.ids.append(_file_id(key, path))
        out.paths.append(path)
        out.projects.append(names[key] or None)
    # two spellings of one file in one note are one edge
    out.cites = sorted({(note, number[node_of[(_norm_name(project), file)]])
                        for note, file, project in rows})
    return out


def _file_id(key: str, path: str) -> str:
    return f"{FILE_PREFIX}{key}:{path}" if key else FILE_PREFIX + path


def _tail_owners(paths: set[str]) -> dict[str, list[str]]:
    """Each tail of a cited path that has a folder (`b/c.py` of `a/b/c.py`) -> the cited paths it ends."""
    owners: dict[str, list[str]] = {}
    for q in sorted(paths):
        parts = q.split("/")
        for i in range(1, len(parts) - 1):
            owners.setdefault("/".join(parts[i:]), []).append(q)
    return owners


# ---------------------------------------------------------------- communities

def communities(ng: NoteGraph, min_size: int = MIN_COMMUNITY) -> list[dict]:
    """Groups of notes that link mostly among themselves, each named by its hub (authored first,
    then by degree); journal notes never belong to one."""
    nodes = [i for i in range(len(ng.ids)) if not ng.journal[i] and not ng.private[i]]
    if not ng.events:
        return []
    parts = _louvain(ng, nodes) if len(nodes) <= LOUVAIN_MAX_NODES else _nearest_hub(ng, nodes)
    out = []
    for members in parts:
        if len(members) < min_size:
            continue
        ranked = sorted(members, key=lambda n: (not ng.hub[n], -len(ng.adj[n]), ng.ids[n]))
        top = ranked[0]
        out.append({"name": ng.name.get(top) or ng.ids[top], "hub": ng.ids[top], "has_hub": bool(ng.hub[top]),
                    "size": len(members), "members": [ng.ids[m] for m in ranked]})
    out.sort(key=lambda c: (-c["size"], c["hub"]))
    return out


def _louvain(ng: NoteGraph, nodes: list[int]) -> list[set[int]]:
    import networkx as nx

    h = nx.Graph()
    h.add_nodes_from(nodes)
    ev = ng.events
    h.add_edges_from(zip(ev[0::2], ev[1::2]))
    return nx.community.louvain_communities(h, seed=7)


def _nearest_hub(ng: NoteGraph, nodes: list[int]) -> list[set[int]]:
    """Above LOUVAIN_MAX_NODES networkx's Louvain gets slow (28 s at 50k notes), so each note joins
    its nearest hub instead (a breadth-first search from all hubs at once, stronger hubs first);
    notes no hub reaches form one community per connected part."""
    adj = ng.adj
    want = max(10, len(nodes) // 200)
    seeds = [n for n in nodes if ng.hub[n]]
    if len(seeds) < want:
        have = set(seeds)
        extra = sorted((n for n in nodes if n not in have), key=lambda n: (-len(adj[n]), ng.ids[n]))
        seeds += extra[: want - len(seeds)]
    seeds.sort(key=lambda n: (-len(adj[n]), ng.ids[n]))
    owner = array("i", [-1]) * len(ng.ids)
    for s in seeds:
        owner[s] = s
    queue = deque(seeds)
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if owner[v] < 0:
                owner[v] = owner[u]
                queue.append(v)
    parts: dict[int, set[int]] = {}
    for n in nodes:
        if owner[n] >= 0:
            parts.setdefault(owner[n], set()).add(n)
    out = list(parts.values())
    for n in nodes:  # the rest: connected parts, found in node order
        if owner[n] >= 0:
            continue
        owner[n] = n
        part, queue = {n}, deque([n])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if owner[v] < 0:
                    owner[v] = n
                    part.add(v)
                    queue.append(v)
        out.append(part)
    return out


# ---------------------------------------------------------------- graph.json

_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode
_enc_str = json.encoder.encode_basestring  # what _ENCODE writes a str as (C when available)
_EMPTY_JSON = _enc_str("")


def _write_items(f, items) -> None:
    """`items` (JSON text, one value each) as the inside of a JSON array (", " between them, as
    json.dumps writes it), written a few thousand at a time: never the whole array in memory."""
    batch: list[str] = []
    first = True
    for item in items:
        batch.append(item)
        if len(batch) == 4096:
            f.write(("" if first else ", ") + ", ".join(batch))
            batch, first = [], False
    if batch:
        f.write(("" if first else ", ") + ", ".join(batch))


def _j(v) -> str:
    """One JSON value as _ENCODE writes it inside an object (str and None on the fast path)."""
    if type(v) is str:
        return _enc_str(v)
    if v is None:
        return "null"
    return _ENCODE(v)


def _note_nodes(conn: sqlite3.Connection, community: dict[str, str], private_ids: dict[str, str]):
    """Note nodes as JSON text, one object each, exactly as _ENCODE writes the dict networkx's
    node-link data holds (keys in its order). aliases and tags are the index's own JSON text
    (notes.dumps of a list of str: the same encoder settings, so the same bytes)."""
    j = _j
    for (path, title, dtitle, typ, status, project, summary, hub, private, folder, aliases, tags) in conn.execute(
            "SELECT path, title, display_title, type, status, project, summary, hub, private, folder, aliases,"
            " tags FROM notes ORDER BY path"):
        if private:  # only the fact that links to it resolve: no title, folder or anything else
            if path in private_ids:
                yield f'{{"kind": "note", "private": true, "id": {j(private_ids[path])}}}'
            continue
        comm = f', "community": {j(community[path])}' if path in community else ""
        yield (f'{{"kind": "note", "title": {j(title)}, "display_title": {j(dtitle)}, "type": {j(typ)}, '
               f'"status": {j(status)}, "project": {j(project)}, "summary": {j(summary)}, '
               f'"hub": {"true" if hub else "false"}, "folder": {j(folder)}, "aliases": {_list_json(aliases)}, '
               f'"tags": {_list_json(tags)}{comm}, "id": {j(path)}}}')


def _list_json(text: str | None) -> str:
    """A list column (notes.dumps text) as _ENCODE writes the list it holds."""
    if not text or text == "[]":
        return "[]"
    if text.startswith('["'):  # notes.dumps of a list of str: already the same bytes
        return text
    return _ENCODE(json.loads(text))


def _edges(conn: sqlite3.Connection, ng: NoteGraph, cf: CitedFiles):
    """Edges in networkx's order: by source node, then by neighbour in the order first linked,
    parallel edges keyed 0, 1, ... in line order (a note's "cites" edges after its links and tags);
    as JSON text, one object each."""
    j = _j
    cites: dict[str, list[int]] = {}
    for note, k in cf.cites:
        cites.setdefault(note, []).append(k)
    links = conn.execute(_LINKS)
    tags = conn.execute("SELECT path, tag FROM tags ORDER BY path, tag")
    link = next(links, None)
    tag = next(tags, None)
    private_ids = ng.private_ids
    etype: dict[tuple, str] = {}  # (kind, prop) -> the edge type's JSON text
    for (path,) in conn.execute("SELECT path FROM notes ORDER BY path"):
        groups: dict[str, list[str]] = {}
        while link is not None and link[0] < path:  # links from no note row (none expected): networkx had them too
            link = next(links, None)
        src_json = None
        while link is not None and link[0] == path:
            src, kind, prop, linkpath, subpath, target, line = link
            node = unresolved_id(linkpath) if target is None else private_ids.get(target, target)
            ty = etype.get((kind, prop))
            if ty is None:
                ty = etype[(kind, prop)] = j(edge_type(kind, prop))
            head = (f'{{"type": {ty}, "subpath": {j(subpath) if subpath else _EMPTY_JSON}, '
                    f'"line": {"null" if line is None else line}')
            g = groups.get(node)
            if g is None:
                groups[node] = [head]
            else:
                g.append(head)
            link = next(links, None)
        if groups:
            src_json = j(path)
            for node, heads in groups.items():
                tail = f', "source": {src_json}, "target": {j(node)}, "key": '
                for k, head in enumerate(heads):
                    yield f"{head}{tail}{k}}}"
        while tag is not None and tag[0] < path:
            tag = next(tags, None)
        if tag is not None and tag[0] == path:
            src_json = src_json or j(path)
            while tag is not None and tag[0] == path:
                yield f'{{"type": "tagged", "source": {src_json}, "target": {j(tag_id(tag[1]))}, "key": 0}}'
                tag = next(tags, None)
        for k in cites.get(path, ()):
            src_json = src_json or j(path)
            yield f'{{"type": "{CITES}", "source": {src_json}, "target": {j(cf.ids[k])}, "key": 0}}'
    for name in ng.tags:
        if "/" in name:
            yield (f'{{"type": "subtag_of", "source": {j("tag:" + name)}, '
                   f'"target": {j(tag_id(name.rsplit("/", 1)[0]))}, "key": 0}}')


def write_json(conn: sqlite3.Connection, ng: NoteGraph, comms: list[dict], path: str | os.PathLike) -> None:
    """graph.json (networkx node-link data of the directed multigraph), streamed to a temp file and
    swapped in atomically: memory stays flat however many nodes and links there are."""
    from ..core.fsutil import atomic_stream

    community = {m: c["name"] for c in comms for m in c["members"]}
    cf = cited_files(conn)
    with atomic_stream(Path(path)) as f:
        f.write('{"directed": true, "multigraph": true, "graph": {}, "nodes": [')
        _write_items(f, _nodes(conn, ng, community, cf))
        f.write('], "links": [')
        _write_items(f, _edges(conn, ng, cf))
        f.write("]}")


def _nodes(conn: sqlite3.Connection, ng: NoteGraph, community: dict[str, str], cf: CitedFiles):
    j = _j
    yield from _note_nodes(conn, community, ng.private_ids)
    for node, kind, label in ng.others:
        comm = f', "community": {j(community[node])}' if node in community else ""
        yield (f'{{"kind": {j(kind)}, "{"name" if kind == "unresolved" else "title"}": {j(label)}{comm}, '
               f'"id": {j(node)}}}')
    for name in ng.tags:
        yield f'{{"kind": "tag", "name": {j(name)}, "id": {j("tag:" + name)}}}'
    for fid, path, project in zip(cf.ids, cf.paths, cf.projects):
        yield f'{{"kind": "file", "path": {j(path)}, "project": {j(project)}, "id": {j(fid)}}}'
