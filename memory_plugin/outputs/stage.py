"""The outputs stage: derived files in the cache dir, written atomically from the index.

graph.json, GRAPH_REPORT.md and graph.html are rewritten only when what they show changed: a
content hash of the graph's rows is kept in outputs.json, with when they were last written and
when a rewrite was last skipped (`memory-plugin status` shows both). The brief is collected every
time (it has its own change check).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import sqlite3
import time

from .. import __version__
from ..core.config import Config
from ..core.fsutil import atomic_write, file_lock

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
        ("lock", "index.lock"), ("vault_lock", "vault.lock"), ("journal_queue", "journal-queue"),
        ("large_notes_queue", "large-notes.queue"),
        ("vectors", "vectors.bin"), ("vectors_current", "vectors.current"))}
    # semantic.VECTORS_FILE and CURRENT_FILE (a test holds them equal)


def all_exist(cfg: Config) -> bool:
    return all(cfg.path(f).exists() for f in (GRAPH_JSON, REPORT, HTML))


def stale(cfg: Config) -> bool:
    """True when the index changed (a reindex, say) since the outputs were last refreshed from it."""
    from ..index.store import get_meta, open_index

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
    "SELECT path, file FROM anchors WHERE file IS NOT NULL ORDER BY path, file",  # files notes cite
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
            # marshal version 2: a function of the values alone (no back-references, which
            # depend on object identity), and a fifth of repr's CPU
            h.update(marshal.dumps(rows, 2))
    return h.hexdigest()


PARALLEL_MIN_NOTES = 2000  # below this a second process costs more than it saves
# Above this the two halves run one after the other in one process: each half's peak (graph.html's
# columns, the report's note graph) grows with the vault, and side by side their peaks add up. It
# was 60,000 when that made 791 MB at 100k notes (the bound is 800 MB); since graph.html is built
# row by row the two side by side peak at ~600 MB PSS at 100k, and on two cores the
# outputs then take about half the wall time (a serial ~30 s of CPU at 100k).
PARALLEL_MAX_NOTES = 150_000


def refresh(cfg: Config, force: bool = False) -> dict:
    """Write the outputs whose content changed (all of them when `force`). Returns what it did.

    In a big vault graph.json and the report are written by a second process while this one
    computes the content hash, writes graph.html and collects the brief (each opens its own
    connection, so none is carried across the fork); in a very big one (PARALLEL_MAX_NOTES) one
    after the other. This process reads hash, graph.html and brief in one snapshot of the index and
    the second process its files in another: when a reindex came between them (their `changed_at`
    differ), no hash is recorded, so the next sync rewrites everything instead of trusting a hash
    that describes only some of the files."""
    from ..index.graph import memo_degrees
    from ..index.store import get_meta

    with file_lock(cfg.path("outputs.lock"), timeout=600), memo_degrees():
        with _index(cfg) as conn:
            n_notes = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
            seen = get_meta(conn, "changed_at")
        big = PARALLEL_MIN_NOTES <= n_notes <= PARALLEL_MAX_NOTES
        # rebuilding a big vault: the second process starts at once and leaves the hash to this one
        graph_files = _start(cfg, big, HASHED_HERE if big else None) if force else None
        digest = at = None
        try:
            with _index(cfg) as conn:
                conn.execute("BEGIN")  # one snapshot: the hash, graph.html and the brief agree
                try:
                    at = get_meta(conn, "changed_at")
                    skip = False
                    if not force or big:
                        digest = graph_hash(cfg, conn)
                    if not force:
                        old = state(cfg)
                        skip = old.get("graph_hash") == digest and all_exist(cfg)
                    now = time.time()
                    if skip:
                        new = {**old, "skipped_at": now, "skipped": int(old.get("skipped", 0)) + 1}
                    else:
                        graph_files = graph_files or _start(cfg, big, digest)
                        new = {"written_at": now, "skipped_at": None, "skipped": 0}
                        from . import view
                        view.write_html(cfg, conn)
                    write_brief(cfg, conn)
                finally:
                    conn.execute("COMMIT")
        finally:
            if graph_files is not None:
                files_digest, files_at = graph_files()  # waits for the second process; its error is raised here
                digest = digest or files_digest
                if files_at != at:  # a reindex between the two snapshots: no hash describes both
                    digest = None
        # the index's change time they were made from: a reindex meanwhile leaves them stale
        atomic_write(cfg.path(STATE), json.dumps({"graph_hash": digest, **new, "changed_at": seen}))
    return {"graph": "unchanged: not rewritten" if skip else "written", "graph_hash": digest}


@contextlib.contextmanager
def _index(cfg: Config):
    from ..index.store import open_index

    conn = open_index(cfg)
    try:
        yield conn
    finally:
        conn.close()


def _start(cfg: Config, parallel: bool, digest: str | None):
    """Begin writing graph.json and the report; returns the call that finishes it, which returns
    the graph's content hash (`digest`, or computed there when None)."""
    if not parallel:
        return lambda: write_graph_files(cfg, digest)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ex = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
    fut = ex.submit(write_graph_files, cfg, digest)

    def finish():
        try:
            return fut.result()
        finally:
            ex.shutdown()
    return finish


HASHED_HERE = ""  # write_graph_files' `digest` when its caller computes the hash itself


def write_graph_files(cfg: Config, digest: str | None = None) -> tuple[str | None, str | None]:
    """graph.json and GRAPH_REPORT.md (communities included) from the index; -> (the content hash
    of the graph they were made from, read in the same transaction, unless the caller has it or
    computes it (HASHED_HERE: then None); the index's `changed_at` in that transaction)."""
    from . import graphdata, report
    from ..index.store import get_meta

    with _index(cfg) as conn:
        conn.execute("BEGIN")  # one snapshot: a reindex meanwhile cannot split hash and files
        try:
            at = get_meta(conn, "changed_at")
            if digest is None:
                digest = graph_hash(cfg, conn)
            elif digest == HASHED_HERE:
                digest = None
            ng = graphdata.load(conn)
            comms = graphdata.communities(ng)
            graphdata.write_json(conn, ng, comms, cfg.path(GRAPH_JSON))
            del ng
            atomic_write(cfg.path(REPORT), report.render(cfg, conn, comms=comms))
        finally:
            conn.execute("COMMIT")
    return digest, at


def write_brief(cfg: Config, conn: sqlite3.Connection) -> None:
    try:
        from . import brief
    except ImportError:
        return
    brief.write(cfg, conn)
