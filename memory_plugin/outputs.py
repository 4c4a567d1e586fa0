"""The outputs stage: derived files in the cache dir, written atomically from the index.

graph.json, GRAPH_REPORT.md and graph.html are rewritten only when what they show changed: a
content hash of the graph's rows is kept in outputs.json, with when they were last written and
when a rewrite was last skipped (`memory-plugin status` shows both). The brief is collected every
time (it has its own change check).
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time

from . import __version__
from .config import Config
from .fsutil import atomic_write, file_lock

GRAPH_JSON = "graph.json"
REPORT = "GRAPH_REPORT.md"
BRIEF = "brief.md"
HTML = "graph.html"
STATE = "outputs.json"


def paths(cfg: Config) -> dict[str, str]:
    return {name: str(cfg.path(f)) for name, f in (
        ("index", "index.sqlite"), ("graph_json", GRAPH_JSON), ("report", REPORT), ("brief", BRIEF),
        ("html", HTML), ("outputs_state", STATE), ("hooks_log", "hooks.log"),
        ("rebuild_stamp", "rebuild.stamp"), ("sync_stamp", "sync.stamp"),
        ("lock", "index.lock"))}


def all_exist(cfg: Config) -> bool:
    return all(cfg.path(f).exists() for f in (GRAPH_JSON, REPORT, HTML))


def stale(cfg: Config) -> bool:
    """True when the index changed (a reindex, say) since the outputs were last refreshed from it."""
    from .index import get_meta, open_index

    conn = open_index(cfg)
    try:
        return get_meta(conn, "changed_at") != state(cfg).get("changed_at")
    finally:
        conn.close()


def state(cfg: Config) -> dict:
    try:
        data = json.loads(cfg.path(STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# What graph.json, the report and graph.html are made of; note bodies, hashes and mtimes are not.
_HASHED = (
    "SELECT path, folder, title, display_title, type, status, project, summary, aliases, tags, props,"
    " private, hub, skipped FROM notes ORDER BY path",
    "SELECT src, kind, prop, linkpath, subpath, display, line, target, ambiguous FROM links"
    " ORDER BY src, line, kind, linkpath, prop, subpath, display, target",
    "SELECT path, is_note FROM files ORDER BY path",
    "SELECT path, tag FROM tags ORDER BY path, tag",
    "SELECT path, kind, message FROM warnings ORDER BY path, kind, message",
)


def graph_hash(cfg: Config, conn: sqlite3.Connection) -> str:
    """A content hash of everything the graph outputs show (and of the settings that shape them)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{__version__}\0{cfg.vault}\0".encode())
    h.update(json.dumps(cfg.values, sort_keys=True, default=str).encode())
    for sql in _HASHED:
        h.update(b"\1")
        cur = conn.execute(sql)
        while rows := cur.fetchmany(20000):
            h.update(repr(rows).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def refresh(cfg: Config, force: bool = False) -> dict:
    """Write the outputs whose content changed (all of them when `force`). Returns what it did."""
    from .index import get_meta, open_index

    with file_lock(cfg.path("outputs.lock"), timeout=600):
        conn = open_index(cfg)
        try:
            seen = get_meta(conn, "changed_at")
            digest = graph_hash(cfg, conn)
            old = state(cfg)
            now = time.time()
            skip = not force and old.get("graph_hash") == digest and all_exist(cfg)
            if skip:
                new = {**old, "skipped_at": now, "skipped": int(old.get("skipped", 0)) + 1}
            else:
                write_graph(cfg, conn)
                new = {"graph_hash": digest, "written_at": now, "skipped_at": None, "skipped": 0}
            write_brief(cfg, conn)
            # the index's change time they were made from: a reindex meanwhile leaves them stale
            atomic_write(cfg.path(STATE), json.dumps({**new, "changed_at": seen}))
        finally:
            conn.close()
    return {"graph": "unchanged: not rewritten" if skip else "written", "graph_hash": digest}


def write_graph(cfg: Config, conn: sqlite3.Connection) -> None:
    """graph.json, GRAPH_REPORT.md and graph.html from the index."""
    from . import graphdata, report, view

    ng = graphdata.load(conn)
    comms = graphdata.communities(ng)
    graphdata.write_json(conn, ng, comms, cfg.path(GRAPH_JSON))
    del ng
    atomic_write(cfg.path(REPORT), report.render(cfg, conn, comms=comms))
    view.write_html(cfg, conn)


def write_brief(cfg: Config, conn: sqlite3.Connection) -> None:
    try:
        from . import brief
    except ImportError:
        return
    brief.write(cfg, conn)
