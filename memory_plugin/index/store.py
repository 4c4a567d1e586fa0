"""The index stage: SQLite (WAL + FTS5); rebuild into a new file and swap, sync, reindex single notes.

It stores and reads; what is derived from it (graph files, the brief) is the outputs stage's, run
after it by pipeline.py.

`index.sqlite` in the cache dir is a symlink to the current generation `index-<n>.sqlite`.
SQLite names the -wal/-shm files after the symlink's target, so swapping the symlink never pairs a
new database with an old write-ahead log. Writers hold `index.lock`; a writer that cannot get it
queues its paths in `pending.txt`, and whoever holds the lock drains that queue before releasing.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import time
TYPE_CHECKING = False  # importing typing costs every hook a few ms
if TYPE_CHECKING:
    from pathlib import Path  # not at run time: a file event that brings notes opens the index without it
    from typing import Callable, Iterable

from ..core.config import Config
from ..core.errors import Busy, CacheFull, IndexMissing, VaultError
from ..core.fsutil import file_lock

if TYPE_CHECKING:
    from ..vault import links as L
    from ..vault.notes import Note
    from ..vault.scan import VaultFile
# links, notes, scan and textutil are imported where a note is read or a link resolved: every query
# and hook opens the index through this module, and those imports (dataclasses, datetime,
# urllib.parse, the parsers' regexes) were a tenth of a lexical query's instructions.

SCHEMA_VERSION = "17"  # 5: fts headings column (last, so bm25 weight lists stay valid); 6: notes_type index; 7: chunks;
# 8: notes_private (private notes found without reading every row); 9: fts props column (last, as 5);
# 10: Dendron links read label-first; 11: Logseq links find a page by its name (`[[x: y]]` is `x%3A y.md`,
# `[[a/b]]` is `a___b.md`), its `alias::`, and `#tag` is a link to the page `tag`; 12: anchors (the code a
# note cites, vault/anchors.py); 13: every writer keeps the generation's cited list (index/code.py), so
# file events never trust a list beside an index an older version wrote; 14: notes read again (a plain
# vault that links by name is titled by file name, templates' prose is no summary, `#placeholder/` is no tag);
# 15: notes read again (a line of tags or a lone greeting is no summary; a date property also in words);
# 16: notes read again (a Readwise `## Metadata` list is properties, its Summary the summary; a Templater
# script over several lines and inline footnotes are no summary; `%23` in a markdown link is part of the name);
# 17: notes read again (a label on a line of its own and a display formula are no summary; `dendron://` with
# no vault's name reads as its note; `.vscode/foam.json` makes a workspace Foam's, titled as Foam titles)
INDEX_NAME = "index.sqlite"

# chunks: the semantic layer's vectors (semantic/vectors.py); note_hash is the note's hash when it was
# embedded, so a row whose note_hash is not the note's current hash is stale (never searched).
SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(path TEXT PRIMARY KEY, path_lc TEXT NOT NULL, name_lc TEXT NOT NULL,
                   is_note INTEGER NOT NULL);
CREATE INDEX files_name ON files(name_lc);
CREATE INDEX files_path_lc ON files(path_lc);
CREATE TABLE notes(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, folder TEXT, title TEXT,
  display_title TEXT, type TEXT, status TEXT, project TEXT, summary TEXT, aliases TEXT, tags TEXT,
  props TEXT, created TEXT, updated TEXT, private INTEGER, hub INTEGER, skipped INTEGER,
  mtime_ns INTEGER, size INTEGER, hash TEXT, warnings TEXT, body_chars INTEGER);
CREATE INDEX notes_type ON notes(type, display_title COLLATE NOCASE);
CREATE INDEX notes_project ON notes(project);
CREATE INDEX notes_hash ON notes(hash);
CREATE INDEX notes_folder ON notes(folder);
CREATE INDEX notes_private ON notes(id) WHERE private = 1;
CREATE TABLE tags(path TEXT NOT NULL, tag TEXT NOT NULL, tag_lc TEXT NOT NULL);
CREATE INDEX tags_path ON tags(path);
CREATE INDEX tags_tag ON tags(tag_lc);
CREATE TABLE aliases(path TEXT NOT NULL, alias_lc TEXT NOT NULL);
CREATE INDEX aliases_path ON aliases(path);
CREATE INDEX aliases_alias ON aliases(alias_lc);
CREATE TABLE links(src TEXT NOT NULL, kind TEXT NOT NULL, prop TEXT, linkpath TEXT NOT NULL,
  subpath TEXT, display TEXT, line INTEGER, key TEXT NOT NULL, target TEXT, ambiguous INTEGER);
CREATE INDEX links_src ON links(src);
CREATE INDEX links_target ON links(target);
CREATE INDEX links_key ON links(key);
CREATE TABLE warnings(path TEXT NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL);
CREATE INDEX warnings_path ON warnings(path);
CREATE TABLE usage(path TEXT PRIMARY KEY, hits INTEGER NOT NULL DEFAULT 0, last_hit TEXT);
CREATE TABLE chunks(path TEXT NOT NULL, seq INTEGER NOT NULL, note_hash TEXT NOT NULL, hash TEXT NOT NULL,
  heading TEXT, start INTEGER, end INTEGER, vec BLOB NOT NULL, PRIMARY KEY(path, seq));
CREATE INDEX chunks_hash ON chunks(hash);
CREATE TABLE anchors(path TEXT NOT NULL, kind TEXT NOT NULL, file TEXT, line1 INTEGER, line2 INTEGER,
  symbol TEXT, qual TEXT, commit_ TEXT, fp TEXT, quote TEXT);
CREATE INDEX anchors_path ON anchors(path);
CREATE INDEX anchors_file ON anchors(file);
CREATE INDEX anchors_symbol ON anchors(symbol) WHERE symbol IS NOT NULL;
CREATE VIRTUAL TABLE fts USING fts5(title, aliases, tags, summary, body, headings, props,
  tokenize = 'unicode61 remove_diacritics 2');
"""


_STATEMENTS = [x.strip() for x in SCHEMA.split(";") if x.strip()]
_TABLES = ";\n".join(x for x in _STATEMENTS if not x.startswith("CREATE INDEX")) + ";"
_INDEXES = [x for x in _STATEMENTS if x.startswith("CREATE INDEX")]


# ---------------------------------------------------------------- connections

def index_path(cfg: Config) -> Path:
    return cfg.path(INDEX_NAME)


def connect(path: str | os.PathLike) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


def disk_full(cfg: Config, e: BaseException) -> CacheFull | None:
    """The one error a full cache disk becomes (from SQLite or from a file write), else None."""
    if isinstance(e, CacheFull):
        return e
    full = isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    if isinstance(e, sqlite3.DatabaseError):
        msg = str(e).lower()
        full = "full" in msg or ("disk i/o error" in msg and free_bytes(cfg) < 1 << 20)
    if not full:
        return None
    return CacheFull(f"the disk of the cache dir {cfg.cache_dir} is full ({free_bytes(cfg) >> 20} MB free): free "
                     "some space (or set cache_dir elsewhere); the previous index is kept and the next "
                     "sync or rebuild retries")


def free_bytes(cfg: Config) -> int:
    try:
        st = os.statvfs(cfg.cache_dir)
    except OSError:
        return 0
    return st.f_bavail * st.f_frsize


def open_index(cfg: Config) -> sqlite3.Connection:
    """The current index, or IndexMissing (run rebuild) when there is none or it is unusable."""
    p = os.path.join(cfg.cache_str, INDEX_NAME)  # index_path(cfg), as a string
    if not os.path.exists(p):
        raise IndexMissing(f"no index for {cfg.vault} in {cfg.cache_dir}: run `memory-plugin rebuild`")
    try:
        conn = connect(p)
        v = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    except sqlite3.DatabaseError as e:
        full = disk_full(cfg, e)
        if full:  # a full disk, not a broken index: say so, never "run rebuild"
            raise full from None
        raise IndexMissing(f"index {p} is unreadable ({e}): run `memory-plugin rebuild`") from None
    if not v or v[0] != SCHEMA_VERSION:
        conn.close()
        raise IndexMissing(f"index {p} has an old schema: run `memory-plugin rebuild`")
    built_for = get_meta(conn, "vault")
    if cfg.vault_str is not None and built_for and os.path.realpath(built_for) != os.path.realpath(cfg.vault_str):
        conn.close()
        raise IndexMissing(f"index {p} was built for the vault {built_for}, not {cfg.vault}: run "
                           "`memory-plugin rebuild`, or give each vault its own cache dir")
    return conn


@contextlib.contextmanager
def _writing(conn: sqlite3.Connection):
    """An index connection for one write transaction (the caller begins and commits it): an error
    rolls back whatever it began, and the connection is closed either way."""
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()


def get_meta(conn: sqlite3.Connection, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: sqlite3.Connection, **kv) -> None:
    conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                     [(k, str(v)) for k, v in kv.items()])


# ---------------------------------------------------------------- resolution

class _SqlNames:
    def __init__(self, conn):
        self.conn = conn

    def get(self, name_lc):
        rows = self.conn.execute("SELECT path FROM files WHERE name_lc=?", (name_lc,)).fetchall()
        return [r[0] for r in rows] or None


class _SqlPaths:
    def __init__(self, conn):
        self.conn = conn

    def get(self, path_lc):
        row = self.conn.execute("SELECT path FROM files WHERE path_lc=?", (path_lc,)).fetchone()
        return row[0] if row else None


class _SqlAliases:
    def __init__(self, conn):
        self.conn = conn

    def __bool__(self):
        return True

    def get(self, alias_lc):
        row = self.conn.execute("SELECT path FROM aliases WHERE alias_lc=? ORDER BY path LIMIT 1",
                                (alias_lc,)).fetchone()
        return row[0] if row else None


def _dialect(cfg: Config) -> str | None:
    return cfg.values.get("dialect")


def _resolve_aliases(cfg: Config) -> bool:
    """Whether `[[name]]` finds a note by an alias: when the user says so (Obsidian does not), and
    always in a Logseq vault (Logseq finds a page by its `alias::` names)."""
    return cfg.resolve_aliases or _dialect(cfg) == "logseq"


def sql_resolver(conn: sqlite3.Connection, cfg: Config) -> L.Resolver:
    from ..vault import links as L
    r = L.Resolver([], dialect=_dialect(cfg))
    r.by_name, r.by_path = _SqlNames(conn), _SqlPaths(conn)
    r.aliases = _SqlAliases(conn) if _resolve_aliases(cfg) else {}
    return r


# ---------------------------------------------------------------- writing one note

def _file_row(path: str, is_note: bool | None = None, dialect: str | None = None) -> tuple:
    """A `files` row. `is_note` is False for a markdown file in an excluded folder: a link target only.
    Its name_lc is the name links find it by (links.file_name_lc: a Logseq page's name)."""
    from ..vault.links import file_name_lc
    note = path.lower().endswith(".md") if is_note is None else is_note
    return (path, path.lower(), file_name_lc(path, dialect), int(note))


def delete_note_rows(conn: sqlite3.Connection, path: str, keep_vectors: bool = False) -> None:
    """Every row of one note. `keep_vectors` (a note being re-written) leaves its chunk vectors,
    stale from now on, for the embedding worker to reuse by chunk hash and then replace."""
    row = conn.execute("SELECT id FROM notes WHERE path=?", (path,)).fetchone()
    if row:
        conn.execute("DELETE FROM fts WHERE rowid=?", (row[0],))
    for table in ("notes", "tags", "aliases", "warnings", "anchors") + (() if keep_vectors else ("chunks",)):
        conn.execute(f"DELETE FROM {table} WHERE path=?", (path,))
    conn.execute("DELETE FROM links WHERE src=?", (path,))


_row_helpers: tuple | None = None  # note_rows' functions from the parsers, imported on first use


def _helpers() -> tuple:
    """(name_key, headings, dumps, is_authored_hub), imported once: import statements run per note
    cost ~3 µs each time (a rebuild writes every note)."""
    global _row_helpers
    if _row_helpers is None:
        from ..vault.links import name_key
        from ..vault.notes import dumps, is_authored_hub
        from ..core.textutil import headings
        _row_helpers = (name_key, headings, dumps, is_authored_hub)
    return _row_helpers


def note_rows(note: Note, resolver: L.Resolver, values: dict) -> tuple:
    """Every row of one note, ready to insert: (notes row, fts row, tags, aliases, warnings, links).
    Built where the note was parsed (a worker process, for a big rebuild)."""
    name_key, headings, dumps, is_authored_hub = _helpers()
    hub = int(note.type == "hub" or is_authored_hub(note.path, note.type, note.tags,
                                                     note.display_title, values))
    row = (note.path, note.folder, note.title, note.display_title, note.type, note.status, note.project,
           note.summary, dumps(note.aliases), dumps(note.tags), dumps(note.props), note.created,
           note.updated, int(note.private), hub, int(note.skipped), note.mtime_ns, note.size, note.hash,
           dumps(note.warnings), len(note.body))
    if note.private:
        fts = (note.title, "", "", "", "", "", "")
    else:
        fts = (f"{note.title} {note.display_title}" if note.display_title != note.title else note.title,
               " ".join(note.aliases), " ".join(note.tags), note.summary, note.body, "\n".join(headings(note.body)),
               note.prop_text)
    links = []
    for ln in note.links:
        target, amb = resolver.resolve(ln.linkpath, note.path)
        links.append((note.path, ln.kind, ln.prop, ln.linkpath, ln.subpath, ln.display, ln.line,
                      name_key(ln.linkpath), target, int(amb)))
    return (row, fts, [(note.path, t, t.lower()) for t in note.tags],
            [(note.path, a.lower()) for a in note.aliases],
            [(note.path, "skipped" if note.skipped else "parse", w) for w in note.warnings], links,
            [] if note.private else [(note.path, *a) for a in note.anchors])


def insert_rows(conn: sqlite3.Connection, batch: list[tuple], first_id: int) -> None:
    """Insert the rows of several notes (from note_rows) at once, as note ids first_id, first_id + 1, ..."""
    ids = range(first_id, first_id + len(batch))
    conn.executemany(
        "INSERT INTO notes(id, path, folder, title, display_title, type, status, project, summary, aliases,"
        " tags, props, created, updated, private, hub, skipped, mtime_ns, size, hash, warnings,"
        " body_chars) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(i, *r[0]) for i, r in zip(ids, batch)])
    conn.executemany("INSERT INTO fts(rowid, title, aliases, tags, summary, body, headings, props)"
                     " VALUES (?,?,?,?,?,?,?,?)",
                     [(i, *r[1]) for i, r in zip(ids, batch)])
    conn.executemany("INSERT INTO tags(path, tag, tag_lc) VALUES (?,?,?)", [t for r in batch for t in r[2]])
    conn.executemany("INSERT INTO aliases(path, alias_lc) VALUES (?,?)", [a for r in batch for a in r[3]])
    conn.executemany("INSERT INTO warnings(path, kind, message) VALUES (?,?,?)", [w for r in batch for w in r[4]])
    conn.executemany("INSERT INTO links(src, kind, prop, linkpath, subpath, display, line, key, target,"
                     " ambiguous) VALUES (?,?,?,?,?,?,?,?,?,?)", [x for r in batch for x in r[5]])
    conn.executemany("INSERT INTO anchors(path, kind, file, line1, line2, symbol, qual, commit_, fp, quote)"
                     " VALUES (?,?,?,?,?,?,?,?,?,?)", [x for r in batch for x in r[6]])


def write_note(conn: sqlite3.Connection, note: Note, resolver: L.Resolver, cfg: Config,
               fresh: bool = False) -> None:
    """Replace every row of one note (caller holds the transaction)."""
    if not fresh:
        delete_note_rows(conn, note.path, keep_vectors=not (note.private or note.skipped))
    nid = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM notes").fetchone()[0]
    insert_rows(conn, [note_rows(note, resolver, cfg.values)], nid)


PROP_TITLES_MARK = "\x1f"  # in the fts props text, the titles of the notes property links point to follow it


def _link_title_rows(conn: sqlite3.Connection, srcs: list[str] | None) -> list[tuple]:
    from ..core.sqlutil import rows_in
    sql = ("SELECT s.id, l.prop, l.linkpath, l.display, t.display_title, l.rowid FROM links l"
           " JOIN notes s ON s.path = l.src JOIN notes t ON t.path = l.target"
           " WHERE l.kind = 'property' AND s.private = 0 AND t.private = 0")
    rows = conn.execute(sql).fetchall() if srcs is None else list(rows_in(conn, sql + " AND l.src IN ({in})", srcs))
    return [r[:5] for r in sorted(rows, key=lambda r: (r[0], r[5]))]


def refresh_link_titles(conn: sqlite3.Connection, srcs: list[str] | None = None) -> int:
    """Each note's property links (`author: "[[kk]]"`, `director:: [[Ridley Scott]]`) searchable by
    the title of the note they point to when it differs from the link's text (a Dendron or Foam
    note's `title:`): `prop: title` lines after PROP_TITLES_MARK in its fts props text, below what
    the note itself says. `srcs`: the notes to refresh (None: every note, a rebuild). -> rows changed."""
    from ..core.textutil import fold
    titles: dict[int, list[str]] = {}
    for sid, prop, linkpath, display, title in _link_title_rows(conn, srcs):
        said = {fold(x.strip()) for x in (linkpath, linkpath.rsplit("/", 1)[-1], display or "") if x}
        if title and fold(title.strip()) not in said:
            line = f"{prop or 'link'}: {' '.join(title.split())}"
            if line not in titles.setdefault(sid, []):
                titles[sid].append(line)
    if srcs is not None:
        from ..core.sqlutil import rows_in
        ids = [r[0] for r in rows_in(conn, "SELECT id FROM notes WHERE path IN ({in}) AND private = 0", srcs)]
    else:
        ids = list(titles)
    n = 0
    for sid in ids:
        row = conn.execute("SELECT props FROM fts WHERE rowid = ?", (sid,)).fetchone()
        if row is None:
            continue
        old = row[0] or ""
        new = old.partition(PROP_TITLES_MARK)[0]
        if titles.get(sid):
            new += PROP_TITLES_MARK + "\n".join(titles[sid])
        if new != old:
            conn.execute("UPDATE fts SET props = ? WHERE rowid = ?", (new, sid))
            n += 1
    return n


def property_linkers(conn: sqlite3.Connection, targets: list[str]) -> set[str]:
    """The notes with a property link to one of `targets` (whose fts props text names their titles)."""
    from ..core.sqlutil import rows_in
    return {r[0] for r in rows_in(conn, "SELECT DISTINCT src FROM links WHERE kind = 'property'"
                                        " AND target IN ({in})", targets)}


def _alias_keys(conn: sqlite3.Connection, paths: list[str]) -> set[str]:
    """The link keys of the aliases these notes have in the index now."""
    from ..vault.links import name_key
    from ..core.sqlutil import rows_in
    return {name_key(r[0]) for r in rows_in(conn, "SELECT alias_lc FROM aliases WHERE path IN ({in})", paths)}


def reresolve(conn: sqlite3.Connection, keys: set[str], resolver: L.Resolver) -> int:
    """Resolve again every link whose target may have changed because files with `keys` came or went."""
    n = 0
    for key in keys:
        rows = conn.execute("SELECT rowid, src, linkpath, target, ambiguous FROM links WHERE key=?",
                            (key,)).fetchall()
        for rowid, src, linkpath, target, amb in rows:
            new, new_amb = resolver.resolve(linkpath, src)
            if new != target or int(new_amb) != amb:
                conn.execute("UPDATE links SET target=?, ambiguous=? WHERE rowid=?", (new, int(new_amb), rowid))
                n += 1
    return n


# ---------------------------------------------------------------- locking


def _pending_file(cfg: Config) -> Path:
    return cfg.path("pending.txt")


def queue_pending(cfg: Config, paths: Iterable[str]) -> None:
    with file_lock(cfg.path("pending.lock"), timeout=10):
        with open(_pending_file(cfg), "a", encoding="utf-8") as f:
            for p in paths:
                f.write(p + "\n")
            f.flush()
            os.fsync(f.fileno())


def take_pending(cfg: Config) -> list[str]:
    pf = _pending_file(cfg)
    if not pf.exists():
        return []
    with file_lock(cfg.path("pending.lock"), timeout=10):
        try:
            data = pf.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        os.unlink(pf)
    return sorted({line for line in data.split("\n") if line})


def index_lock(cfg: Config, timeout: float = -1):
    return file_lock(cfg.path("index.lock"), timeout=timeout)


# ---------------------------------------------------------------- rebuild

TEMP_MIN_AGE = 60  # seconds: no write of ours takes this long, so an older temp file is a leftover


def _scan(cfg: Config, warnings: list) -> tuple[dict[str, VaultFile], list[str]]:
    """-> (notes, other files): attachments, and every file of the excluded folders, which stay link
    targets (`![[Books.base]]` from Templates/Bases/ resolves) without being sources or notes."""
    from ..vault.scan import walk_vault
    vault = cfg.require_vault()
    skip = (str(cfg.cache_dir),)
    targets: list[str] = []
    temps: list[str] = []
    notes, attachments = walk_vault(vault, cfg.exclude, warnings, skip_dirs=skip, targets_only=targets,
                                    temps=temps)
    if temps:
        remove_stale_temps(cfg, temps)
    return notes, attachments + targets


def remove_stale_temps(cfg: Config, temps: list[str]) -> int:
    """Remove temp files a killed writer of ours left in the vault: only while no writer holds the
    vault lock (every writer of ours holds it), and only when older than TEMP_MIN_AGE."""
    from ..core.fsutil import vault_lock

    lock = vault_lock(cfg.cache_dir, timeout=0)
    try:
        lock.acquire()
    except Exception:  # a write is under way: the next sync cleans up
        return 0
    n = 0
    try:
        now = time.time()
        for t in temps:
            try:
                st = os.lstat(t)
                if os.path.isfile(t) and not os.path.islink(t) and now - st.st_mtime > TEMP_MIN_AGE:
                    os.unlink(t)
                    n += 1
            except OSError:
                pass
    finally:
        lock.release()
    return n


def rebuild(cfg: Config, progress: Callable[[int, int], None] | None = None,
            lock_timeout: float = -1, only_if: Callable[[], bool] | None = None) -> dict:
    """Build a fresh index into a new file and swap it in. Returns counts.

    `only_if` is checked again once the lock is held: a rebuild asked for before another finished
    is skipped ({"skipped": True}) when that one made it unnecessary."""
    cfg.require_vault()
    cfg.ensure_cache_dir()
    t0 = time.time()
    lock = index_lock(cfg, lock_timeout)
    try:
        lock.acquire()
    except Exception:
        raise Busy("another rebuild or sync holds the index lock")
    try:
        if only_if is not None and not only_if():
            return {"skipped": True}
        stats = _rebuild_locked(cfg, progress)
        drain_pending_locked(cfg)
    finally:
        lock.release()
    _drain_after_release(cfg)
    stats["seconds"] = round(time.time() - t0, 3)
    return stats


def _or_full(cfg: Config, fn):
    """fn(), with a full cache disk raised as the one CacheFull error."""
    try:
        return fn()
    except (OSError, sqlite3.DatabaseError) as e:
        full = disk_full(cfg, e)
        if full:
            raise full from None
        raise


PARALLEL_MIN_NOTES = 1500  # below this, starting worker processes costs more than it saves
CHUNK = 250
_WORK: dict = {}  # what forked workers inherit: the config values and the resolver


def _rows_chunk(vfs: list[VaultFile]) -> list[tuple]:
    from ..vault.notes import read_note
    values, resolver = _WORK["values"], _WORK["resolver"]
    return [note_rows(read_note(vf, values), resolver, values) for vf in vfs]


def _aliases_chunk(vfs: list[VaultFile]) -> list[tuple[str, list[str]]]:
    from ..vault.notes import read_note
    return [(vf.path, read_note(vf, _WORK["values"]).aliases) for vf in vfs]


def _parallel(fn, vfs: list[VaultFile], values: dict, resolver: L.Resolver | None):
    """fn over chunks of `vfs`, in order, on every core when there are enough notes to pay for the
    workers. At most two chunks per worker are in flight, so however fast the workers parse,
    the parent (which only writes to SQLite) never holds more than a few chunks of rows."""
    _WORK.update(values=values, resolver=resolver)
    chunks = [vfs[i:i + CHUNK] for i in range(0, len(vfs), CHUNK)]
    workers = min(os.cpu_count() or 1, 8)
    if len(vfs) < PARALLEL_MIN_NOTES or workers < 2:
        for c in chunks:
            yield fn(c)
        return
    import multiprocessing
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as ex:
        todo, inflight = iter(chunks), deque()
        for c in todo:
            inflight.append(ex.submit(fn, c))
            if len(inflight) >= 2 * workers:
                break
        while inflight:
            done = inflight.popleft().result()
            nxt = next(todo, None)
            if nxt is not None:
                inflight.append(ex.submit(fn, nxt))
            yield done


def _rebuild_locked(cfg: Config, progress) -> dict:
    scan_warnings: list[tuple[str, str, str]] = []
    files, attachments = _scan(cfg, scan_warnings)
    _remove_stale_generations(cfg)
    gen = f"index-{time.time_ns()}.sqlite"
    try:
        return _build_generation(cfg, gen, files, attachments, scan_warnings, progress)
    except BaseException as e:
        _remove_generation(cfg, gen)  # a failed rebuild leaves nothing behind; the old index stays
        full = disk_full(cfg, e) if isinstance(e, Exception) else None
        if full:
            raise full from None
        raise


def _current_generation(cfg: Config) -> str | None:
    try:
        return os.readlink(cfg.path(INDEX_NAME))
    except OSError:
        return None


def _remove_generation(cfg: Config, gen: str) -> None:
    if gen == _current_generation(cfg):
        return
    from .code import CITED_SUFFIX

    for suffix in ("", "-journal", "-wal", "-shm", CITED_SUFFIX):
        try:
            os.unlink(cfg.path(gen + suffix))
        except FileNotFoundError:
            pass
        except OSError:
            pass


def _remove_stale_generations(cfg: Config) -> None:
    """Generations left by a rebuild that was killed (caller holds the index lock: none is in use
    for writing; readers keep their open file handles)."""
    current = _current_generation(cfg)
    for p in cfg.cache_dir.glob("index-*.sqlite"):
        if p.name != current:
            _remove_generation(cfg, p.name)


def stale_generations(cfg: Config) -> list[Path]:
    current = _current_generation(cfg)
    return [p for p in cfg.cache_dir.glob("index-*.sqlite*") if not current or not p.name.startswith(current)]


def _build_generation(cfg: Config, gen: str, files, attachments, scan_warnings, progress) -> dict:
    from ..vault import links as L
    from ..vault.notes import templates_read_afresh

    templates = templates_read_afresh(cfg.values)  # before any note is read (sync compares it)
    new_path = cfg.path(gen)
    conn = sqlite3.connect(str(new_path), isolation_level=None)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    try:
        conn.executescript(_TABLES)  # indexes come after the rows: built once, in order, is faster
        conn.execute("BEGIN")
        # Rows go in in path order (the scan's order is the directory listing's): what reads the
        # index by path (the outputs, the content hash: ORDER BY path / src, line) then walks the
        # table in rowid order instead of jumping about it, which at 100k notes was most of their time.
        all_paths = sorted(list(files) + attachments)
        conn.executemany("INSERT INTO files(path, path_lc, name_lc, is_note) VALUES (?,?,?,?)",
                         [_file_row(p, p in files, _dialect(cfg)) for p in all_paths])
        resolver = L.Resolver(all_paths, memo=True, dialect=_dialect(cfg))
        vfs = [files[p] for p in sorted(files)]
        total = len(vfs)
        if _resolve_aliases(cfg):  # [[Alias]] needs every note's aliases before the first link is resolved
            pairs = sorted(p for chunk in _parallel(_aliases_chunk, vfs, cfg.values, None) for p in chunk)
            first: dict[str, str] = {}
            for path, aliases in pairs:  # the first path wins, as in sql_resolver
                for a in aliases:
                    first.setdefault(a.lower(), path)
            resolver.aliases = first
        done = n_warnings = 0
        for batch in _parallel(_rows_chunk, vfs, cfg.values, resolver):
            insert_rows(conn, batch, done + 1)
            n_warnings += sum(len(r[4]) for r in batch)
            done += len(batch)
            if progress:
                progress(done, total)
        conn.executemany("INSERT INTO warnings(path, kind, message) VALUES (?,?,?)", scan_warnings)
        for stmt in _INDEXES:
            conn.execute(stmt)
        refresh_link_titles(conn)
        old = cfg.path(INDEX_NAME)
        if old.exists():
            try:
                oc = sqlite3.connect(f"file:{old}?mode=ro", uri=True)
                usage = oc.execute("SELECT path, hits, last_hit FROM usage").fetchall()
                oc.close()
                conn.executemany("INSERT OR REPLACE INTO usage VALUES (?,?,?)", usage)
            except sqlite3.DatabaseError:
                pass
        now = time.time()
        set_meta(conn, schema_version=SCHEMA_VERSION, vault=str(cfg.vault), built_at=now,
                 synced_at=now, changed_at=now, generation=gen, templates=templates)
        conn.execute("COMMIT")
        from . import code

        code.keep_cited(conn, cfg.cache_str, gen)  # before the swap: file events trust it from then on
        if old.exists():
            carry_over_vectors(conn, str(old.resolve()))
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    _swap_in(cfg, gen)
    from ..core.fsutil import atomic_write
    _or_full(cfg, lambda: atomic_write(cfg.path("rebuild.stamp"), f"{now}\n", skip_unchanged=False))
    _or_full(cfg, lambda: atomic_write(cfg.path("sync.stamp"), f"{now}\n", skip_unchanged=False))
    return {"notes": len(files), "attachments": len(attachments), "links": _count(cfg, "links"),
            "warnings": len(scan_warnings) + n_warnings}


def carry_over_vectors(conn: sqlite3.Connection, old_path: str) -> int:
    """Copy the previous generation's vectors (the chunks table the semantic extra fills) of notes
    still present and not private into a new index (rebuild), as `usage` is carried: the embedding
    pass after it re-embeds only notes whose content changed."""
    try:
        conn.execute("ATTACH DATABASE ? AS prev", (f"file:{old_path}?mode=ro",))
    except sqlite3.DatabaseError:
        return 0
    try:
        conn.execute("BEGIN")
        try:
            n = conn.execute(
                "INSERT INTO chunks SELECT c.* FROM prev.chunks c JOIN notes n ON n.path = c.path"
                " WHERE n.private = 0 AND n.skipped = 0").rowcount
            for key in ("embedding_model", "embedding_dim", "cosine_calibration"):  # semantic.calibration
                row = conn.execute("SELECT value FROM prev.meta WHERE key=?", (key,)).fetchone()
                if row:
                    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, row[0]))
            conn.execute("COMMIT")
        except sqlite3.DatabaseError:  # an old generation without the table: nothing to reuse
            conn.execute("ROLLBACK")
            n = 0
    finally:
        conn.execute("DETACH DATABASE prev")
    return n


def _count(cfg: Config, table: str) -> int:
    conn = open_index(cfg)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def _swap_in(cfg: Config, gen: str) -> None:
    link = cfg.path(INDEX_NAME)
    tmp = cfg.path(f".{INDEX_NAME}.{os.getpid()}.tmp")
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    os.symlink(gen, tmp)
    if link.exists() and not link.is_symlink():
        os.unlink(link)  # a plain file left by something else: the new generation replaces it
    os.replace(tmp, link)
    # Old generations: open readers keep their file handles; the names can go now.
    for p in cfg.cache_dir.glob("index-*.sqlite*"):
        if not p.name.startswith(gen):
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass


# ---------------------------------------------------------------- sync and reindex

BROKEN_INDEX_WAIT = 60  # seconds a background sync waits for the lock when the index is missing or broken


def _unusable(cfg: Config) -> bool:
    """No index, or one that cannot be used (unreadable, an old schema, another vault's)."""
    if not index_path(cfg).exists():
        return True
    try:
        open_index(cfg).close()
    except IndexMissing:
        return True
    return False


def sync(cfg: Config, lock_timeout: float = -1) -> dict:
    """Bring the index up to date with the vault, reading only what changed."""
    cfg.require_vault()
    cfg.ensure_cache_dir()
    if _unusable(cfg):
        # Nothing works until it is built: wait for a lock another process holds (a background sync
        # asks for none, but one that gave up here would leave a broken index to the next session);
        # if that process built it, nothing is left to do.
        return {"rebuilt": True, **rebuild(cfg, lock_timeout=BROKEN_INDEX_WAIT if lock_timeout == 0 else lock_timeout,
                                           only_if=lambda: _unusable(cfg))}
    lock = index_lock(cfg, lock_timeout)
    try:
        lock.acquire()
    except Exception:
        raise Busy("another rebuild or sync holds the index lock")
    try:
        from ..core.fsutil import atomic_write

        stats = _or_full(cfg, lambda: _sync_locked(cfg))
        _or_full(cfg, lambda: drain_pending_locked(cfg))
        _or_full(cfg, lambda: atomic_write(cfg.path("sync.stamp"), f"{time.time()}\n", skip_unchanged=False))
    finally:
        lock.release()
    _drain_after_release(cfg)
    return stats


def _sync_locked(cfg: Config) -> dict:
    from ..vault import links as L
    from ..vault.notes import read_note, templates_read_afresh
    scan_warnings: list[tuple[str, str, str]] = []
    files, attachments = _scan(cfg, scan_warnings)
    stats = {"new": 0, "changed": 0, "deleted": 0, "renamed": 0, "touched": 0, "unchanged": 0}
    with _writing(open_index(cfg)) as conn:
        known = {r[0]: (r[1], r[2], r[3]) for r in
                 conn.execute("SELECT path, mtime_ns, size, hash FROM notes")}
        # the templates' prose is part of every note's reading (its summary skips it): when it changed,
        # every note is read again
        templates = templates_read_afresh(cfg.values)
        reread = get_meta(conn, "templates") != templates
        known_att = {r[0] for r in conn.execute("SELECT path FROM files WHERE is_note=0")}
        gone = [p for p in known if p not in files]
        gone_hashes = {known[p][2]: p for p in gone}
        to_parse: list[Note] = []
        touch: list[tuple[int, int, str]] = []
        for path, vf in files.items():
            old = known.get(path)
            if old and old[0] == vf.mtime_ns and old[1] == vf.size and not reread:
                stats["unchanged"] += 1
                continue
            note = read_note(vf, cfg.values)
            if old and note.hash == old[2] and not reread:
                touch.append((vf.mtime_ns, vf.size, path))
                stats["touched"] += 1
                continue
            if not old:
                stats["renamed" if note.hash in gone_hashes else "new"] += 1
            else:
                stats["changed"] += 1
            to_parse.append(note)
        new_att = [p for p in attachments if p not in known_att]
        att_set = set(attachments)
        gone_att = [p for p in known_att if p not in att_set]
        added_files = [n.path for n in to_parse if n.path not in known] + new_att
        removed_files = gone + gone_att
        stats["deleted"] = len(gone) - stats["renamed"]
        conn.execute("BEGIN IMMEDIATE")
        # links to an alias a changed or deleted note had (or has now) may resolve elsewhere
        keys: set[str] = _alias_keys(conn, removed_files + [n.path for n in to_parse]) \
            if _resolve_aliases(cfg) else set()
        # notes whose property links name a changed note's title (refresh_link_titles)
        linkers = property_linkers(conn, removed_files + [n.path for n in to_parse])
        for p in removed_files:
            conn.execute("DELETE FROM files WHERE path=?", (p,))
            delete_note_rows(conn, p)
        conn.executemany("INSERT OR REPLACE INTO files(path, path_lc, name_lc, is_note) VALUES (?,?,?,?)",
                         [_file_row(p, p in files, _dialect(cfg)) for p in added_files])
        conn.executemany("UPDATE notes SET mtime_ns=?, size=? WHERE path=?", touch)
        resolver = sql_resolver(conn, cfg)
        for note in to_parse:
            write_note(conn, note, resolver, cfg)
        for p in added_files + removed_files:
            keys |= L.keys_for_file(p, _dialect(cfg))
        if _resolve_aliases(cfg):
            for note in to_parse:
                keys |= {L.name_key(a) for a in note.aliases}
        reresolve(conn, keys, resolver)
        linkers |= property_linkers(conn, added_files + [n.path for n in to_parse])
        refresh_link_titles(conn, sorted(linkers | {n.path for n in to_parse}))
        conn.execute("DELETE FROM warnings WHERE kind IN ('symlink', 'unreadable')")
        conn.executemany("INSERT INTO warnings(path, kind, message) VALUES (?,?,?)", scan_warnings)
        changed = bool(to_parse or removed_files or new_att)
        now = time.time()
        set_meta(conn, synced_at=now, templates=templates)
        if changed:
            set_meta(conn, changed_at=now)
        from . import code

        code.keep_cited(conn, cfg.cache_str, before_commit=True)  # the cited list (index/code.py)
        conn.execute("COMMIT")
        code.keep_cited(conn, cfg.cache_str)
    stats["changed_any"] = changed
    return {**stats, "changed": changed, "modified": stats["changed"]}


def to_rel(cfg: Config, path: str) -> str | None:
    """A vault-relative path for `path`, or None when it is outside the vault or excluded."""
    from ..core.paths import vault_rel

    return vault_rel(cfg.vault, path, cfg.exclude)


def reindex(cfg: Config, paths: Iterable[str], lock_timeout: float = 2.0) -> dict:
    """Re-read single notes. When the index lock is held (a rebuild), queue them for its holder."""
    cfg.require_vault()
    rels = []
    for p in paths:
        rel = to_rel(cfg, p)
        if rel is None:
            raise VaultError(f"{p} is not inside the vault {cfg.vault} (or is in an excluded folder)")
        rels.append(rel)
    if not index_path(cfg).exists():
        raise IndexMissing(f"no index for {cfg.vault} yet: run `memory-plugin rebuild`")
    lock = index_lock(cfg, lock_timeout)
    try:
        lock.acquire()
    except Exception:
        queue_pending(cfg, rels)
        _drain_after_release(cfg)
        return {"queued": len(rels), "reindexed": 0}
    try:
        stats = _or_full(cfg, lambda: _reindex_locked(cfg, rels))
        _or_full(cfg, lambda: drain_pending_locked(cfg))
    finally:
        lock.release()
    _drain_after_release(cfg)
    return stats


def _reindex_locked(cfg: Config, rels: list[str]) -> dict:
    from ..vault import links as L
    from ..vault.notes import read_note
    from ..vault.scan import VaultFile
    stats = {"reindexed": 0, "removed": 0, "unchanged": 0, "queued": 0}
    with _writing(open_index(cfg)) as conn:
        conn.execute("BEGIN IMMEDIATE")
        resolver = sql_resolver(conn, cfg)
        keys: set[str] = set()
        linkers = property_linkers(conn, rels)  # notes whose property links name their titles
        for rel in rels:
            full = os.path.join(cfg.vault, rel)
            exists = rel.lower().endswith(".md") and os.path.isfile(full)
            known = conn.execute("SELECT hash, mtime_ns, size FROM notes WHERE path=?", (rel,)).fetchone()
            if not exists:
                if rel.lower().endswith(".md"):
                    if known or conn.execute("SELECT 1 FROM files WHERE path=?", (rel,)).fetchone():
                        if _resolve_aliases(cfg):
                            keys |= _alias_keys(conn, [rel])
                        conn.execute("DELETE FROM files WHERE path=?", (rel,))
                        delete_note_rows(conn, rel)
                        keys |= L.keys_for_file(rel, _dialect(cfg))
                        stats["removed"] += 1
                else:
                    in_files = conn.execute("SELECT 1 FROM files WHERE path=?", (rel,)).fetchone()
                    if os.path.isfile(full) and not in_files:
                        conn.execute("INSERT INTO files VALUES (?,?,?,?)", _file_row(rel, None, _dialect(cfg)))
                        keys |= L.keys_for_file(rel, _dialect(cfg))
                    elif not os.path.isfile(full) and in_files:
                        conn.execute("DELETE FROM files WHERE path=?", (rel,))
                        keys |= L.keys_for_file(rel, _dialect(cfg))
                continue
            st = os.stat(full)
            note = read_note(VaultFile(rel, full, st.st_mtime_ns, st.st_size), cfg.values)
            if known and known[0] == note.hash:
                conn.execute("UPDATE notes SET mtime_ns=?, size=? WHERE path=?", (st.st_mtime_ns, st.st_size, rel))
                stats["unchanged"] += 1
                continue
            if not known:
                conn.execute("INSERT OR REPLACE INTO files VALUES (?,?,?,?)", _file_row(rel, None, _dialect(cfg)))
                keys |= L.keys_for_file(rel, _dialect(cfg))
            if _resolve_aliases(cfg):
                keys |= _alias_keys(conn, [rel]) | {L.name_key(a) for a in note.aliases}
            write_note(conn, note, resolver, cfg)
            stats["reindexed"] += 1
        reresolve(conn, keys, resolver)
        linkers |= property_linkers(conn, rels)
        refresh_link_titles(conn, sorted(linkers | set(rels)))
        if stats["reindexed"] or stats["removed"]:
            set_meta(conn, changed_at=time.time())
        from . import code

        code.keep_cited(conn, cfg.cache_str, before_commit=True)  # the cited list (index/code.py)
        conn.execute("COMMIT")
        code.keep_cited(conn, cfg.cache_str)
    return stats


def drain_pending_locked(cfg: Config) -> None:
    for _ in range(5):
        rels = take_pending(cfg)
        if not rels:
            return
        _reindex_locked(cfg, rels)


def _drain_after_release(cfg: Config) -> None:
    """Close the race where paths were queued just as the lock holder finished draining."""
    if not _pending_file(cfg).exists():
        return
    lock = index_lock(cfg, 0)
    try:
        lock.acquire()
    except Exception:
        return  # the current holder drains before it releases
    try:
        drain_pending_locked(cfg)
    finally:
        lock.release()


# ---------------------------------------------------------------- reading helpers

def note_row(conn: sqlite3.Connection, path: str) -> dict | None:
    conn.row_factory = sqlite3.Row
    try:
        r = conn.execute("SELECT * FROM notes WHERE path=?", (path,)).fetchone()
    finally:
        conn.row_factory = None
    if not r:
        return None
    d = dict(r)
    for k in ("aliases", "tags", "props", "warnings"):
        d[k] = json.loads(d[k]) if d[k] else ([] if k != "props" else {})
    return d


def snapshot(conn: sqlite3.Connection) -> dict:
    """Everything the index says about the vault, for comparing a synced index with a rebuilt one."""
    notes = sorted(tuple(r) for r in conn.execute(
        "SELECT path, folder, title, display_title, type, status, project, summary, aliases, tags, props,"
        " created, updated, private, hub, skipped, hash, warnings FROM notes"))
    return {
        "files": sorted(tuple(r) for r in conn.execute("SELECT * FROM files")),
        "notes": notes,
        "tags": sorted(tuple(r) for r in conn.execute("SELECT * FROM tags")),
        "aliases": sorted(tuple(r) for r in conn.execute("SELECT * FROM aliases")),
        "links": sorted(tuple(r) for r in conn.execute(
            "SELECT src, kind, prop, linkpath, subpath, display, line, key, target, ambiguous FROM links")),
        "warnings": sorted(tuple(r) for r in conn.execute(
            "SELECT path, kind, message FROM warnings WHERE kind NOT IN ('symlink','unreadable')")),
        "fts": sorted(tuple(r) for r in conn.execute(
            "SELECT n.path, f.title, f.aliases, f.tags, f.summary, f.body, f.headings, f.props FROM fts f"
            " JOIN notes n ON n.id=f.rowid")),
        "fts_rows": conn.execute("SELECT count(*) FROM fts").fetchone()[0],
    }
