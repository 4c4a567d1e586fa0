"""Derived files in the cache dir, rewritten atomically after the index changes."""
from __future__ import annotations

import json
import sqlite3

from .config import Config
from .fsutil import atomic_write, file_lock

GRAPH_JSON = "graph.json"
REPORT = "GRAPH_REPORT.md"
BRIEF = "brief.md"
HTML = "graph.html"


def paths(cfg: Config) -> dict[str, str]:
    return {name: str(cfg.path(f)) for name, f in (
        ("index", "index.sqlite"), ("graph_json", GRAPH_JSON), ("report", REPORT), ("brief", BRIEF),
        ("html", HTML), ("hooks_log", "hooks.log"), ("rebuild_stamp", "rebuild.stamp"),
        ("sync_stamp", "sync.stamp"),
        ("lock", "index.lock"))}


def all_exist(cfg: Config) -> bool:
    return all(cfg.path(f).exists() for f in (GRAPH_JSON, REPORT))


def write_all(cfg: Config) -> None:
    """graph.json, GRAPH_REPORT.md, brief.md and graph.html from the current index."""
    from . import graph as G
    from . import report
    from .index import get_meta, open_index, set_meta

    with file_lock(cfg.path("outputs.lock"), timeout=600):
        conn = open_index(cfg)
        try:
            seen = get_meta(conn, "changed_at")
            g = G.build_graph(conn)
            comms = G.communities(g)
            for c in comms:
                for m in c["members"]:
                    g.nodes[m]["community"] = c["name"]
            data = G.export_data(g)
            atomic_write(cfg.path(GRAPH_JSON), json.dumps(data, ensure_ascii=False, default=str))
            atomic_write(cfg.path(REPORT), report.render(cfg, conn, g, comms))
            write_brief(cfg, conn)
            try:
                from . import view
            except ImportError:
                view = None
            if view is not None:
                view.write_html(cfg, conn, g)
            conn.execute("BEGIN IMMEDIATE")
            if get_meta(conn, "changed_at") == seen:  # a reindex meanwhile keeps them stale
                set_meta(conn, outputs_stale=0)
            conn.execute("COMMIT")
        finally:
            conn.close()


def write_brief(cfg: Config, conn: sqlite3.Connection) -> None:
    try:
        from . import brief
    except ImportError:
        return
    brief.write(cfg, conn)
