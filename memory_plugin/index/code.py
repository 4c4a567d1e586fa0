"""Notes and the code they cite: anchors (vault/anchors.py) resolved against the repository Claude
works in, and whether the cited code changed since the note was written.

A repository is the git top-level of the file touched (or of the working folder). A note's anchor
names a path as the note wrote it; it matches a repository file when that path is the file's path
from the top-level, or a tail of it at a folder boundary (`middleware/base.py`). A symbol anchor
matches a file that defines it (`def`/`class`/`function`/`func`/`fn`/...); `Class.method` needs the
method inside that class (or a Go receiver of that type).

Changed since: the cited code is compared with what the note saw, in this order of evidence:
1. the fingerprint `remember --about` recorded in the note (`fp=`), exact;
2. for a permalink, the code it quotes right after it, else the file at its commit when the
   repository has that commit;
3. else the code as it was the first time the plugin saw the anchor in this repository (the
   baseline, kept in `code.sqlite` in the cache folder, per repository, note and anchor).
Lines whose code is found elsewhere in the file are `moved` (followed, not flagged); a symbol is
followed by its name. A whole-file anchor is `changed` when the file differs from its baseline and
the note cites nothing more precise in it.

Standard library only: the PostToolUse hook runs this on every Read and Edit. sqlite3 is imported
where it is used: a file event on code no note cites reads only the cited list (could_cite).
"""
from __future__ import annotations

import json
import os
import re
import time
TYPE_CHECKING = False  # sqlite3 is imported where it is used (the docstring says why)
if TYPE_CHECKING:
    import sqlite3

MAX_CODE_BYTES = 2_000_000   # a bigger file is not read for symbols or fingerprints
BASE_DB = "code.sqlite"
# the most specific evidence first: cites these lines > this symbol > this file
TIER_LINES, TIER_SYMBOL, TIER_FILE = 0, 1, 2
_PY_DEF = r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)"
_PY_KEY = r"(?:def|class)[ \t]"  # on every line _PY_DEF matches
# brace languages: JS/TS functions and classes, methods in a class body, Go funcs with receivers,
# Rust fn/impl, Java/C#/Kotlin/Swift methods and types
_BRACE_DEFS = (
    r"^([ \t]*)(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?function\*?[ \t]+([A-Za-z_$][\w$]*)",
    r"^([ \t]*)(?:export[ \t]+)?(?:default[ \t]+)?(?:abstract[ \t]+)?(?:public[ \t]+|private[ \t]+|internal[ \t]+)?"
    r"(?:final[ \t]+|sealed[ \t]+|data[ \t]+|static[ \t]+)*(class|struct|enum|trait|interface|impl|object|protocol)"
    r"(?:<[^>\n]*>)?[ \t]+([A-Za-z_$][\w$]*)",
    r"^([ \t]*)(?:export[ \t]+)?(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*(?:async[ \t]+)?"
    r"(?:function\b|\([^)\n]*\)[ \t]*=>|[A-Za-z_$][\w$]*[ \t]*=>)",
    r"^([ \t]*)func[ \t]+(?:\([ \t]*\w*[ \t]*\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?[ \t]*\)[ \t]*)?([A-Za-z_]\w*)",
    r"^([ \t]*)(?:pub(?:\([^)]*\))?[ \t]+)?(?:async[ \t]+)?(?:unsafe[ \t]+)?(?:const[ \t]+)?fn[ \t]+([A-Za-z_]\w*)",
    r"^([ \t]+)(?:(?:public|private|protected|internal|static|async|override|final|virtual|get|set)[ \t]+)*"
    r"(?!if\b|for\b|while\b|switch\b|catch\b|return\b|function\b|else\b|new\b)([A-Za-z_$][\w$]*)[ \t]*"
    r"(?:<[^>\n]*>)?\([^)\n]*\)[ \t]*(?::[^{\n]+)?\{",
)


_DEF_RES: list | None = None  # compiled on first use: a file event that needs no symbol never pays for them


def _def_res(python: bool) -> list:
    """[the Python definition pattern, its keywords] or the brace languages' patterns, compiled once."""
    global _DEF_RES
    if _DEF_RES is None:
        _DEF_RES = [None, None]
    k = 0 if python else 1
    if _DEF_RES[k] is None:
        _DEF_RES[k] = [re.compile(_PY_DEF, re.M), re.compile(_PY_KEY)] if python else \
            [re.compile(x, re.M) for x in _BRACE_DEFS]
    return _DEF_RES[k]


# ---------------------------------------------------------------- the repository

def repo_root(path: str) -> str | None:
    """The git top-level holding `path` (a file or a folder), or None."""
    from ..core.paths import git_top

    d = os.path.abspath(path)
    return git_top(d if os.path.isdir(d) else os.path.dirname(d))


def read_code(path: str) -> str | None:
    try:
        if os.path.getsize(path) > MAX_CODE_BYTES:
            return None
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        return None
    if b"\0" in raw[:8192]:
        return None  # binary
    return raw.decode("utf-8", errors="replace")


def tails(rel: str) -> list[str]:
    """`a/b/c.py` -> [`a/b/c.py`, `b/c.py`, `c.py`]: the ways a note may write that file's path."""
    parts = rel.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


# ---------------------------------------------------------------- symbols

class Def:
    __slots__ = ("name", "cls", "line1", "line2", "is_class")

    def __init__(self, name, cls, line1, line2, is_class):
        self.name, self.cls, self.line1, self.line2, self.is_class = name, cls, line1, line2, is_class


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def _py_defs(text: str):
    """_PY_DEF's matches in `text`, in order, as its finditer gives them: it matches within one line
    and only at a line's start (re.M), so only the lines holding `def ` or `class ` are tried (the
    other scan cost a file event on a large Python file ~7M instructions)."""
    rx, key = _def_res(True)
    pos = 0
    while (k := key.search(text, pos)) is not None:
        m = rx.match(text, text.rfind("\n", 0, k.start()) + 1)
        if m:
            yield m
        pos = text.find("\n", k.end()) + 1
        if not pos:
            return


def _line_of(starts: list[int], pos: int) -> int:
    import bisect

    return bisect.bisect_right(starts, pos)  # 1-based


def _indents(lines: list[str]) -> list[int | None]:
    """Each line's indentation (tabs as 4), None for a blank line or one that closes a bracket."""
    out: list[int | None] = []
    for s in lines:
        t = s.lstrip(" \t")
        out.append(None if not t or t[0] in ")]}" else len(s[: len(s) - len(t)].expandtabs(4)))
    return out


def _indent_end(ind: list[int | None], i: int, indent: int) -> int:
    """Python: the last line (1-based) of the block opened at line i (0-based)."""
    last = i
    for j in range(i + 1, len(ind)):
        d = ind[j]
        if d is None:
            continue
        if d <= indent:
            break
        last = j
    # a closing bracket or blank line after the block's last indented line is not the block's
    return last + 1


def _brace_end(text: str, start: int, starts: list[int]) -> int:
    """Brace languages: the line (1-based) where the block opened after `start` closes."""
    i = text.find("{", start)
    nl = text.find(";", start)
    if i < 0 or (0 <= nl < i and text.count("\n", start, nl) == 0 and text.count("\n", start, i) > 0):
        return _line_of(starts, start)
    depth = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return _line_of(starts, i)
        elif c in "\"'`":
            j = i + 1
            while j < n and text[j] != c and not (c != "`" and text[j] == "\n"):
                j += 2 if text[j] == "\\" else 1
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        i += 1
    return _line_of(starts, n - 1)


def _per_text(fn):
    """`fn(text, *args)` remembered for the last `text` object (by identity) and args: one file event
    asks the same of one file's text for every anchor of every note citing it."""
    last: list = [None, None, None]

    def remembered(text, *args):
        if last[0] is not text or last[1] != args:
            last[:] = [text, args, fn(text, *args)]
        return last[2]
    remembered.__doc__ = fn.__doc__
    return remembered


@_per_text
def definitions(text: str, path: str = "") -> list[Def]:
    """The functions, methods and classes (types) a source file defines, with their line spans."""
    starts = _line_starts(text)
    out: list[Def] = []
    if path.endswith((".py", ".pyi", ".pyx")) or (not path.rsplit("/", 1)[-1].count(".") and text.startswith("#!") and "python" in text[:80]):
        indents = _indents(text.split("\n"))
        classes: list[tuple[int, str, int, int]] = []  # (indent, name, line1, line2)
        for m in _py_defs(text):
            indent = len(m.group(1).expandtabs(4))
            l1 = _line_of(starts, m.start())
            l2 = _indent_end(indents, l1 - 1, indent)
            owner = None
            for ind, name, c1, c2 in reversed(classes):
                if ind < indent and c1 < l1 <= c2:
                    owner = name
                    break
            is_class = m.group(2) == "class"
            if is_class:
                classes.append((indent, m.group(3), l1, l2))
            out.append(Def(m.group(3), owner, l1, l2, is_class))
        return out
    seen: set[tuple[str, int]] = set()
    types: list[Def] = []
    for k, rx in enumerate(_def_res(False)):
        for m in rx.finditer(text):
            l1 = _line_of(starts, m.start())
            if k == 3:  # Go: func (r *Recv) Name
                name, cls, is_class = m.group(3), m.group(2), False
            elif k == 1:
                name, cls, is_class = m.group(3), None, True
            else:
                name, cls, is_class = m.group(2), None, False
            if (name, l1) in seen:
                continue
            seen.add((name, l1))
            l2 = _brace_end(text, m.end() - (text[m.end() - 1] == "{"), starts)
            d = Def(name, cls, l1, l2, is_class)
            out.append(d)
            if is_class:
                types.append(d)
    for d in out:  # a method inside a class body belongs to it
        if d.cls is None and not d.is_class:
            owners = [t for t in types if t.line1 < d.line1 <= t.line2]
            if owners:
                d.cls = max(owners, key=lambda t: t.line1).name
    return out


def find_symbol(defs: list[Def], name: str, qual: str | None) -> Def | None:
    hits = [d for d in defs if d.name == name and not d.is_class]
    if qual:
        hits = [d for d in hits if d.cls == qual]
    if not hits and not qual:
        hits = [d for d in defs if d.name == name]
    return hits[0] if hits else None


# ---------------------------------------------------------------- fingerprints

def _norm(lines) -> list[str]:
    """Lines as compared: stripped of surrounding space, blank lines dropped."""
    return [s.strip() for s in lines if s.strip()]


def fingerprint(lines) -> str:
    """16 hex digits naming the normalized text of `lines` (two checksums: hashlib's OpenSSL load
    alone would be a fifth of a quiet PostToolUse). It tells changed code from unchanged; it is not
    a security digest."""
    import zlib

    data = "\n".join(_norm(lines)).encode("utf-8", "replace")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def block(file_lines: list[str], l1: int, l2: int) -> list[str]:
    return file_lines[max(l1 - 1, 0):l2]


@_per_text
def _normalized(file_lines: list[str]) -> tuple[list[int], list[str]]:
    """(0-based line numbers, texts) of a file's non-blank lines, stripped."""
    norm = [(i, s.strip()) for i, s in enumerate(file_lines) if s.strip()]
    return [i for i, _ in norm], [t for _, t in norm]


def locate(file_lines: list[str], want: list[str]) -> int | None:
    """The 1-based line where the normalized block `want` starts in the file, or None."""
    want = _norm(want)
    if not want:
        return None
    lines, texts = _normalized(file_lines)
    k = len(want)
    first = want[0]
    for j, s in enumerate(texts):
        if s == first and texts[j:j + k] == want:
            return lines[j] + 1
    return None


def locate_fp(file_lines: list[str], fp: str, size: int) -> int | None:
    """Where a block of `size` lines with fingerprint `fp` starts (a moved block), or None."""
    for i in range(0, max(len(file_lines) - size + 1, 0)):
        if fingerprint(file_lines[i:i + size]) == fp:
            return i + 1
    return None


# ---------------------------------------------------------------- baselines

def open_bases(cache_dir: str) -> sqlite3.Connection:
    import sqlite3

    conn = sqlite3.connect(os.path.join(cache_dir, BASE_DB), timeout=2.0, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit is not fsynced; a crash loses at most the last
    conn.execute("CREATE TABLE IF NOT EXISTS base(repo TEXT NOT NULL, note TEXT NOT NULL, akey TEXT NOT NULL,"
                 " lines TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY(repo, note, akey))")
    # each note's last judged state per cited file: the brief shows "changed since" without reading code
    conn.execute("CREATE TABLE IF NOT EXISTS last(repo TEXT NOT NULL, note TEXT NOT NULL, file TEXT NOT NULL,"
                 " state TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY(repo, note, file))")
    return conn


def last_states(cache_dir: str, repo: str) -> dict[str, str]:
    """{note: "changed"} for the notes whose cited code in `repo` was last judged changed (the brief's
    source: no code is read at SessionStart). Nothing when no note was ever judged."""
    import sqlite3

    conn = _read_bases(cache_dir)
    if conn is None:
        return {}
    try:
        return {n: "changed" for (n,) in conn.execute(
            "SELECT DISTINCT note FROM last WHERE repo = ? AND state = 'changed'", (os.path.realpath(repo),))}
    except sqlite3.Error:
        return {}
    finally:
        conn.close()


def _read_bases(cache_dir: str) -> sqlite3.Connection | None:
    """code.sqlite opened read-only, or None when no note was ever judged (or it cannot be read)."""
    import sqlite3

    db = os.path.join(cache_dir, BASE_DB)
    if not os.path.exists(db):
        return None
    try:
        return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
    except sqlite3.Error:
        return None


def anchor_key(row: dict) -> str:
    return "|".join(str(row.get(k) or "") for k in ("kind", "file", "line1", "line2", "qual", "symbol", "commit"))


# ---------------------------------------------------------------- state of one anchor

def state_of(row: dict, rel: str, text: str, base: str | None, defs: list[Def] | None = None,
             git_lines=None) -> tuple[str, str | None, list[str] | None]:
    """(state, where, lines-to-record) of one anchor of a note against a repository file `rel`
    whose text is `text`. `base`: the recorded baseline (JSON list of lines) or None; `git_lines`:
    a callable giving the file's lines at a commit (or None). lines-to-record: what to keep as the
    baseline when there is none yet (None: nothing to record)."""
    file_lines = _split(text)
    kind = row["kind"]
    if kind == "symbol":
        d = find_symbol(defs if defs is not None else definitions(text, rel), row["symbol"], row.get("qual"))
        if d is None:
            return "missing", None, None
        cur = block(file_lines, d.line1, d.line2)
        where = f"{rel}:{d.line1}-{d.line2}"
        if base is None:
            return "unknown", where, cur
        return ("current" if _norm(json.loads(base)) == _norm(cur) else "changed"), where, None
    if kind == "file":
        fp = _file_fp(text)
        if row.get("fp"):  # `remember --about PATH`: the whole file as it was then
            return ("current" if fp == row["fp"] else "changed"), rel, None
        if base is None:
            return "unknown", rel, [fp]
        return ("current" if json.loads(base) == [fp] else "changed"), rel, None
    l1, l2 = int(row["line1"]), int(row["line2"] or row["line1"])
    cur = block(file_lines, l1, l2)
    where = f"{rel}:{l1}" + (f"-{l2}" if l2 != l1 else "")
    if l1 > len(file_lines) and not (row.get("fp") or row.get("quote") or base):
        return "missing", where, None
    want: list[str] | None = None
    if row.get("fp"):
        if fingerprint(cur) == row["fp"]:
            return "current", where, None
        at = locate_fp(file_lines, row["fp"], l2 - l1 + 1)
        return ("moved", f"{rel}:{at}", None) if at else ("changed", where, None)
    if row.get("quote"):
        want = row["quote"].split("\n")
    elif base is not None:
        want = json.loads(base)
    elif row.get("commit") and git_lines is not None:
        old = git_lines(row["commit"], row["file"])
        if old is not None:
            want = block(old, l1, l2)
    if want is None:
        return "unknown", where, cur
    if _norm(cur) == _norm(want) or (row.get("quote") and _contains(cur, want)):
        return "current", where, None
    at = locate(file_lines, want)
    if at:
        return "moved", f"{rel}:{at}", None
    return "changed", where, None


@_per_text
def _split(text: str) -> list[str]:
    return text.split("\n")


@_per_text
def _file_fp(text: str) -> str:
    """The fingerprint of a whole file (one per file event, however many notes cite it whole)."""
    return fingerprint(_split(text))


def _combine(states: list[str]) -> str:
    """A note's state from its anchors': changed beats moved; missing only when all are."""
    return ("changed" if "changed" in states else "moved" if "moved" in states else
            "missing" if states and all(s == "missing" for s in states) else "current")


def _contains(cur: list[str], want: list[str]) -> bool:
    c, w = _norm(cur), _norm(want)
    return bool(w) and all(x in c for x in w)


# ---------------------------------------------------------------- notes citing a file

def _norm_name(s) -> str:
    return re.sub(r"[^a-z0-9]+", "", str(s or "").lower())


def same_project(note_project, project: str | None, repo: str) -> bool:
    """A note that names a project cites this repository's files only when that project is the one
    Claude works in (by name, or the repository folder's name)."""
    if not note_project:
        return True
    np = _norm_name(note_project)
    return np in {_norm_name(project), _norm_name(os.path.basename(repo))} - {""}


ANCHOR_COLS = "a.path, a.kind, a.file, a.line1, a.line2, a.symbol, a.qual, a.commit_, a.fp, a.quote"


def _row(r) -> dict:
    return dict(zip(("path", "kind", "file", "line1", "line2", "symbol", "qual", "commit", "fp", "quote"), r))


def citing(conn, repo: str, rel: str, text: str | None, project: str | None = None,
           touched: tuple[int, int] | None = None) -> list[dict]:
    """The notes citing repository file `rel` (text `text`), each {path, tier, state, where, anchors},
    most specific first: lines (overlapping `touched` when given) > symbol > file. Private notes and
    notes of another project never."""
    from ..core.sqlutil import rows_in

    defs = definitions(text, rel) if text is not None else []
    names = sorted({d.name for d in defs if not d.is_class})
    rows = [_row(r) for r in rows_in(
        conn, f"SELECT {ANCHOR_COLS} FROM anchors a WHERE a.file IN ({{in}})", tails(rel))]
    if names:
        rows += [_row(r) for r in rows_in(
            conn, f"SELECT {ANCHOR_COLS} FROM anchors a WHERE a.kind = 'symbol' AND a.symbol IN ({{in}})", names)]
    if not rows:
        return []
    by_note: dict[str, list[dict]] = {}
    for r in rows:
        by_note.setdefault(r["path"], []).append(r)
    meta = {p: (proj, priv) for p, proj, priv in rows_in(
        conn, "SELECT path, project, private FROM notes WHERE path IN ({in})", list(by_note))}
    files_of: dict[str, set[str]] = {}
    for p, f in rows_in(conn, "SELECT path, file FROM anchors WHERE file IS NOT NULL AND path IN ({in})", list(by_note)):
        files_of.setdefault(p, set()).add(f)
    out = []
    my_tails = set(tails(rel))
    for path, anchors in by_note.items():
        proj, priv = meta.get(path, (None, 1))
        if priv or not same_project(proj, project, repo):
            continue
        keep = []
        for a in anchors:
            if a["kind"] == "symbol":
                d = find_symbol(defs, a["symbol"], a["qual"])
                if d is None:
                    continue
                from ..core.textutil import identifier_like  # here: its module's regexes cost a quiet event

                if a["qual"] is None and not identifier_like(a["symbol"]) and not (files_of.get(path, set()) & my_tails):
                    continue  # `send()`: a common word, counted only in the files its note cites
            keep.append(a)
        if not keep:
            continue
        tier = min(TIER_LINES if a["kind"] == "lines" else TIER_SYMBOL if a["kind"] == "symbol" else TIER_FILE
                   for a in keep)
        if touched and tier == TIER_LINES:
            lo, hi = touched
            if not any(a["kind"] == "lines" and a["line1"] <= hi and (a["line2"] or a["line1"]) >= lo for a in keep):
                tier = TIER_SYMBOL
        out.append({"path": path, "tier": tier, "anchors": keep})
    out.sort(key=lambda n: (n["tier"], -len(n["anchors"]), n["path"]))
    return out


# ---------------------------------------------------------------- the cited list

# Beside each index generation (index-N.sqlite-cited, removed with it): every path its notes cite and
# the symbol names that count alone, so that a file event on code no note cites (most of them) reads
# one small file and imports no SQLite. It is never missing what its generation's index holds: the
# writers (index/store.py, under the index lock) remove it inside any write transaction that would
# add to it, before COMMIT, and write it afresh after; a list absent or unreadable is not trusted.
# An index written by a version that did not keep it has another schema, so it is never paired with one.
CITED_SUFFIX = "-cited"
_WORD = r"[A-Za-z_$][\w$]*"  # a symbol name as a word of a file's text


def cited_list(conn) -> dict:
    """{"files": every anchored path, "symbols": the symbol names citing() counts wherever they are
    defined (qualified, or names no prose word is)}. A plain `send()` counts only in a file its note
    cites, which that note's path finds."""
    from ..core.textutil import identifier_like

    files = {f for (f,) in conn.execute("SELECT DISTINCT file FROM anchors WHERE file IS NOT NULL")}
    symbols = {s for s, q in conn.execute("SELECT DISTINCT symbol, qual FROM anchors WHERE kind = 'symbol'"
                                          " AND symbol IS NOT NULL") if q is not None or identifier_like(s)}
    return {"files": sorted(files), "symbols": sorted(symbols)}


def cited_path(cache_dir: str, generation: str | None = None) -> str | None:
    """The cited list of `generation` (a file name), by default the index's current one, or None."""
    if generation is None:
        try:
            generation = os.readlink(os.path.join(cache_dir, "index.sqlite"))  # store.INDEX_NAME
        except OSError:  # no index, or not a generation's symlink: no list
            return None
    return os.path.join(cache_dir, generation + CITED_SUFFIX)


def _read_cited(path: str | None) -> tuple[set, set] | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return set(data["files"]), set(data["symbols"])
    except (OSError, TypeError, ValueError, KeyError):
        return None


def could_cite(cache_dir: str, rel: str, text: str | None) -> bool | None:
    """Can a note of the index cite repository file `rel` (text `text`)? False when none can, True
    when one may (citing() decides), None when there is no cited list to go by."""
    got = _read_cited(cited_path(cache_dir))
    if got is None:
        return None
    files, symbols = got
    if any(t in files for t in tails(rel)):
        return True
    if text is None or not symbols:
        return False
    words = symbols.intersection(re.findall(_WORD, text))
    return bool(words) and any(d.name in words for d in definitions(text, rel) if not d.is_class)


def keep_cited(conn, cache_dir: str, generation: str | None = None, before_commit: bool = False) -> None:
    """Keep the cited list of the index `conn` (of `generation`, by default the current one) true to
    it; the caller holds the index lock. Inside a write transaction (`before_commit`), a list that
    would miss one of its paths or symbols is removed, for good before the COMMIT; after the COMMIT,
    the list is written. A list that cannot be written is left out (file events then ask SQLite)."""
    path = cited_path(cache_dir, generation)
    if path is None:
        return
    now = cited_list(conn)
    if before_commit:
        old = _read_cited(path)
        if old is not None and not (old[0].issuperset(now["files"]) and old[1].issuperset(now["symbols"])):
            os.unlink(path)
            try:  # the removal outlives a crash whenever the COMMIT does (where folders can be synced)
                fd = os.open(cache_dir, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:
                pass
        elif old is None and os.path.lexists(path):
            os.unlink(path)  # an unreadable list
        return
    from ..core.fsutil import atomic_write

    try:
        atomic_write(path, json.dumps(now))
    except OSError:
        pass


def git_lines_fn(repo: str):
    """A function (commit, path) -> the file's lines at that commit, or None (no such commit)."""
    if not os.path.exists(os.path.join(repo, ".git")):
        return None

    def get(commit: str, path: str):
        out = _git(repo, "show", f"{commit}:{path}")
        return None if out is None else out.split("\n")
    return get


def judge(cache_dir: str | None, repo: str, rel: str, text: str, notes: list[dict], record: bool = True,
          git: bool = False, note_state: bool = True) -> None:
    """Set each note's `state` (changed beats moved beats current; whole-file anchors count only when
    the note cites nothing more precise in this file) and `where`; record the baselines not yet
    kept when `record` (the file as Claude read it, before any edit of its own), and each note's
    state when it differs from the last one recorded (not when `note_state` is False: `notes` then
    hold only some of each note's anchors, whose state is not the note's)."""
    import sqlite3

    conn = None
    try:
        conn = open_bases(cache_dir) if cache_dir else None
    except sqlite3.Error:
        conn = None
    defs = definitions(text, rel)
    gl = git_lines_fn(repo) if git else None
    new: list[tuple] = []
    try:
        bases: dict[tuple[str, str], str] = {}
        last: dict[str, str] = {}
        if conn is not None:
            from ..core.sqlutil import rows_in

            paths = [n["path"] for n in notes]
            bases = {(p, k): v for p, k, v in rows_in(
                conn, "SELECT note, akey, lines FROM base WHERE note IN ({in}) AND repo = ?", paths, (repo,))}
            last = {p: st for p, st in rows_in(
                conn, "SELECT note, state FROM last WHERE note IN ({in}) AND repo = ? AND file = ?", paths, (repo, rel))}
        for n in notes:
            states = []
            where = None
            precise = any(a["kind"] != "file" for a in n["anchors"])
            for a in n["anchors"]:
                if precise and a["kind"] == "file":
                    continue
                key = anchor_key(a) + "|" + rel
                st, w, rec = state_of(a, rel, text, bases.get((n["path"], key)), defs, gl)
                if rec is not None and record:
                    new.append((repo, n["path"], key, json.dumps(rec), time.time()))
                states.append(st)
                where = where or w
            n["state"] = _combine(states)
            n["where"] = where
        now = time.time()
        states_new = [(repo, n["path"], rel, n["state"], now) for n in notes
                      if note_state and last.get(n["path"]) != n["state"]]
        if conn is not None and (new or states_new):
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(INSERT_BASE, new)
                conn.executemany("INSERT OR REPLACE INTO last(repo, note, file, state, at) VALUES (?,?,?,?,?)",
                                 states_new)
                conn.execute("COMMIT")
            except sqlite3.Error:
                if conn.in_transaction:
                    conn.rollback()
    finally:
        if conn is not None:
            conn.close()


def note_anchors(conn, path: str) -> list[dict]:
    return [_row(r) for r in conn.execute(
        f"SELECT {ANCHOR_COLS} FROM anchors a WHERE a.path = ?", (path,))]


GIT_DATED_MAX = 400  # (file, date) pairs one worker run asks git about: the rest wait for the next run


def _git(repo: str, *args: str) -> str | None:
    import subprocess

    try:
        p = subprocess.run(["git", "-C", repo, *args], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None


def text_as_of(repo: str, rel: str, day: str) -> str | None:
    """The file as the repository's history had it at the end of `day` (YYYY-MM-DD), or None (no
    history, or the file did not exist yet)."""
    sha = (_git(repo, "log", "-1", "--format=%H", f"--before={day}T23:59:59", "--", rel) or "").strip()
    return _git(repo, "show", f"{sha}:{rel}") if sha else None


INSERT_BASE = "INSERT OR IGNORE INTO base(repo, note, akey, lines, at) VALUES (?,?,?,?,?)"


def _note_day(*dates) -> str | None:
    """The first of a note's dates (last validated, updated, created) that is a YYYY-MM-DD day."""
    return next((str(x)[:10] for x in dates if x and re.match(r"\d{4}-\d{2}-\d{2}", str(x))), None)


def _dated_rows(repo: str, path: str, rel: str, anchors: list[dict], old: str) -> list[tuple]:
    """Baseline rows of a note's anchors into `rel`, from `old`, the file as of the note's date."""
    defs = definitions(old, rel)
    out = []
    for a in anchors:
        rec = state_of(a, rel, old, None, defs)[2]
        if rec is not None:
            out.append((repo, path, anchor_key(a) + "|" + rel, json.dumps(rec), time.time()))
    return out


def record_repo(conn, cache_dir: str, repo: str, project: str | None) -> int:
    """Record the baselines of every anchor into this repository's files that has none yet (the
    SessionStart worker). Where the repository has history and the note a date (last validated, else
    updated, else created), the baseline is the code as of that date, so "changed since" means since
    the note was written; else it is the code as the session finds it, and a later edit is compared
    with that. Returns how many files were read."""
    import sqlite3

    repo = os.path.realpath(repo)
    rows, dates = [], {}
    for r in conn.execute(f"SELECT {ANCHOR_COLS}, n.project, n.created, n.updated,"
                          " CASE WHEN json_valid(n.props) THEN json_extract(n.props, '$.last_validated') END"
                          " FROM anchors a JOIN notes n ON n.path = a.path WHERE n.private = 0"):
        d = _row(r[:10])
        if same_project(r[10], project, repo):
            rows.append(d)
            day = _note_day(r[13], r[12], r[11])
            if day:
                dates[d["path"]] = day
    by_file: dict[str, dict[str, list[dict]]] = {}
    for a in rows:
        if a["file"] and os.path.isfile(os.path.join(repo, a["file"])):
            by_file.setdefault(a["file"], {}).setdefault(a["path"], [])
    for a in rows:  # a note's symbols are looked for in the files it cites
        for rel, notes in by_file.items():
            if a["path"] in notes and (a["file"] == rel or a["kind"] == "symbol"):
                notes[a["path"]].append(a)
    history = _git(repo, "rev-parse", "--verify", "-q", "HEAD") is not None
    asked = 0
    for rel, notes in by_file.items():
        text = read_code(os.path.join(repo, rel))
        if text is None:
            continue
        if history and cache_dir:
            dated = []
            old_texts: dict[str, str | None] = {}
            for path, anchors in notes.items():
                day = dates.get(path)
                if not day or asked >= GIT_DATED_MAX:
                    continue
                if day not in old_texts:
                    asked += 1
                    old_texts[day] = text_as_of(repo, rel, day)
                if old_texts[day] is not None:
                    dated += _dated_rows(repo, path, rel, anchors, old_texts[day])
            if dated:
                try:
                    bc = open_bases(cache_dir)
                    try:
                        bc.executemany(INSERT_BASE, dated)
                    finally:
                        bc.close()
                except sqlite3.Error:
                    pass
        judge(cache_dir, repo, rel, text, [{"path": p, "anchors": a} for p, a in notes.items()], record=True,
              git=True)
    return len(by_file)


def _symbol_files(repo: str, name: str) -> list[str]:
    """The repository files whose text has the word `name` (git grep over tracked and untracked
    files, ignored ones left out), at most a few: where a symbol-only anchor may be defined."""
    out = _git(repo, "grep", "-l", "-w", "-I", "--untracked", "-e", name)
    return [f for f in out.split("\n") if f][:SYMBOL_FILES_MAX] if out else []


SYMBOL_FILES_MAX = 20  # files looked at for a symbol-only anchor outside a hook (explain, brief, query)


def note_states(conn, cache_dir: str | None, repo: str, paths: list[str]) -> dict[str, dict]:
    """For notes outside a file event (explain, the brief, query): {path: {"state", "anchors": [{kind,
    file, lines, symbol, state, where}]}} for the notes among `paths` that cite code of `repo`; a note
    whose anchors all miss this repository is left out (it is about other code)."""
    from ..core.sqlutil import rows_in

    repo = os.path.realpath(repo)
    anchors: dict[str, list[dict]] = {}
    for r in rows_in(conn, f"SELECT {ANCHOR_COLS} FROM anchors a WHERE a.path IN ({{in}})", paths):
        a = _row(r)
        anchors.setdefault(a["path"], []).append(a)
    out: dict[str, dict] = {}
    texts: dict[str, str | None] = {}

    def text_of(rel):
        if rel not in texts:
            texts[rel] = read_code(os.path.join(repo, rel))
        return texts[rel]

    for path, rows in anchors.items():
        files = [a["file"] for a in rows if a["file"] and os.path.isfile(os.path.join(repo, a["file"]))]
        listed = []
        for a in rows:
            if a["kind"] == "symbol":
                cands = files or [f for f in _symbol_files(repo, a["symbol"]) if f]
                for rel in cands:
                    t = text_of(rel)
                    if t is not None and find_symbol(definitions(t, rel), a["symbol"], a["qual"]):
                        listed.append((rel, a))
                        break
            elif a["file"] in files:
                listed.append((a["file"], a))
        if not listed:
            continue
        states = []
        shown = []
        for rel in dict.fromkeys(rel for rel, _ in listed):
            mine = [a for r, a in listed if r == rel]
            n = {"path": path, "anchors": mine}
            judge(cache_dir, repo, rel, text_of(rel) or "", [n], record=True)
            states.append(n["state"])
            for a in mine:
                one = {"path": path, "anchors": [a]}
                judge(cache_dir, repo, rel, text_of(rel) or "", [one], record=False, note_state=False)
                shown.append(_as_written(a, one["state"], one.get("where")) | {"file": rel})
        out[path] = {"state": _combine(states), "anchors": shown}
    return out


# ---------------------------------------------------------------- the command line's views
# explain, backlinks, reorganize and query: a note's anchors with their state, the notes citing a file

# overall state of a note from its anchors' states, the most telling first
_NOTE_STATE_ORDER = ("changed", "missing", "moved", "current", "unknown")


def cite_text(a: dict) -> str:
    """An anchor as a person writes it: `path`, `path:10-20`, `Class.method()`."""
    if a.get("kind") == "symbol":
        return ".".join(x for x in (a.get("qual"), a.get("symbol")) if x) + "()"
    f = a.get("file") or ""
    if a.get("line1"):
        l1, l2 = a["line1"], a.get("line2") or a["line1"]
        return f"{f}:{l1}" + (f"-{l2}" if l2 != l1 else "")
    return f


_IN_HISTORY: dict[tuple[str, str], bool] = {}


def in_history(repo: str, rel: str) -> bool:
    """Whether the repository's git history knows path `rel` (a file since deleted or renamed): a
    cited path the work tree lacks is code that vanished only then (`multipart/byteranges` in prose
    never was a file)."""
    if (repo, rel) not in _IN_HISTORY:
        _IN_HISTORY[repo, rel] = bool((_git(repo, "log", "-1", "--format=%H", "--", rel) or "").strip())
    return _IN_HISTORY[repo, rel]


def _record_dated(conn, cache_dir: str | None, repo: str, path: str) -> None:
    """The baselines of a note's anchors that have none yet, from the code as of the note's date, as
    the SessionStart worker records them (record_repo): explain, query or reorganize run before any
    session must not take the code as it is now for the code the note saw."""
    import sqlite3

    if not cache_dir:
        return
    r = conn.execute("SELECT created, updated, CASE WHEN json_valid(props) THEN json_extract(props, '$.last_validated')"
                     " END FROM notes WHERE path = ?", (path,)).fetchone()
    day = _note_day(r[2], r[1], r[0]) if r else None
    if not day:
        return
    rows = [a for a in note_anchors(conn, path) if not a["fp"]]
    files = list(dict.fromkeys(a["file"] for a in rows if a["file"] and os.path.isfile(os.path.join(repo, a["file"]))))
    if not files:
        return
    try:
        bc = open_bases(cache_dir)
    except sqlite3.Error:
        return
    try:
        have = {k for (k,) in bc.execute("SELECT akey FROM base WHERE repo = ? AND note = ?", (repo, path))}
        todo: dict[str, list[dict]] = {}
        for rel in files:
            mine = [a for a in rows if (a["file"] == rel or a["kind"] == "symbol") and anchor_key(a) + "|" + rel not in have]
            text = read_code(os.path.join(repo, rel)) if mine else None
            if text is not None:  # only what can have a baseline (a symbol this file defines, lines it has)
                defs = definitions(text, rel)
                todo[rel] = [a for a in mine if state_of(a, rel, text, None, defs)[2] is not None]
        if not any(todo.values()) or _git(repo, "rev-parse", "--verify", "-q", "HEAD") is None:
            return
        dated = []
        for rel, anchors in todo.items():
            old = text_as_of(repo, rel, day) if anchors else None
            if old is not None:
                dated += _dated_rows(repo, path, rel, anchors, old)
        bc.executemany(INSERT_BASE, dated)
    except sqlite3.Error:
        pass
    finally:
        bc.close()


def _as_written(a: dict, state: str, where: str | None = None) -> dict:
    return {"kind": a["kind"], "file": a["file"], "lines": [a["line1"], a["line2"]] if a["line1"] else None,
            "symbol": ".".join(x for x in (a["qual"], a["symbol"]) if x) or None, "cite": cite_text(a),
            "state": state, "where": where}


def note_code(conn, cache_dir: str | None, repo: str | None, path: str, project: str | None = None,
              vanished: bool = True) -> dict:
    """Every anchor of one note (explain, reorganize), with its state in `repo`:
    {"repository", "state", "anchors": [{kind, file, lines, symbol, cite, state, where}]}. A cited
    file the work tree lacks is `missing` when git's history knows it, else `unknown`; a symbol no
    file defines is `unknown` (another library's, perhaps); outside a repository, or for a
    note of another project, every anchor is `unknown`. `state`: changed > missing > moved > current
    (None for a note that cites no code). `vanished=False`: git's history is not asked (query)."""
    rows = note_anchors(conn, path)
    out = {"repository": repo, "state": None, "anchors": []}
    if not rows:
        return out
    r = conn.execute("SELECT project FROM notes WHERE path = ?", (path,)).fetchone()
    if repo is None or not same_project(r[0] if r else None, project, repo):
        out.update(state="unknown", anchors=[_as_written(a, "unknown") for a in rows])
        return out
    repo = os.path.realpath(repo)
    _record_dated(conn, cache_dir, repo, path)
    got = note_states(conn, cache_dir, repo, [path]).get(path)

    def key(kind, file, lines, symbol):
        return kind, None if kind == "symbol" else file, tuple(lines or (None, None)), symbol

    resolved = {key(x["kind"], x["file"], x["lines"], x["symbol"]): x for x in (got or {}).get("anchors", [])}
    missing = False
    for a in rows:
        w = _as_written(a, "unknown")
        x = resolved.get(key(w["kind"], w["file"], w["lines"], w["symbol"]))
        if x is not None:
            w.update(state=x["state"], where=x["where"], file=x["file"])
        elif a["file"] and vanished and in_history(repo, a["file"]):
            w["state"] = "missing"
            missing = True
        out["anchors"].append(w)
    # the note's state as judge gives it (a whole-file anchor weighs only when the note cites nothing
    # more precise in that file), then whatever vanished
    states = ([got["state"]] if got else []) + (["missing"] if missing else [])
    out["state"] = next((s for s in _NOTE_STATE_ORDER if s in states), "unknown")
    return out


def changed_where(info: dict) -> list[str]:
    """The places a note_code answer says changed: `path:10-20` as it stands now."""
    return [a["where"] or a["cite"] for a in info["anchors"] if a["state"] == "changed"] or \
        [a["cite"] for a in info["anchors"] if a["state"] != "unknown"]


def file_notes(conn, cache_dir: str | None, repo: str, rel: str, project: str | None = None) -> list[dict]:
    """The notes citing repository file `rel` (explain and backlinks of a file), most specific first:
    [{path, cites ("lines", "symbol" or "file"), anchors (as cited), state, where}]. A file no longer
    there: its notes with state `missing`."""
    repo = os.path.realpath(repo)
    text = read_code(os.path.join(repo, rel))
    notes = citing(conn, repo, rel, text, project)
    if text is not None:
        judge(cache_dir, repo, rel, text, notes, record=True)
    return [{"path": n["path"], "cites": ("lines", "symbol", "file")[n["tier"]],
             "anchors": [cite_text(a) for a in n["anchors"]],
             "state": n.get("state", "missing"), "where": n.get("where")} for n in notes]


def repo_file(conn, arg: str, cwd: str) -> tuple[str, str] | None:
    """(repository, path from its top-level) for a file argument of explain or backlinks: a file of
    the working folder's repository, relative to the working folder, absolute or relative to the
    top-level; or a path there no longer, when a note cites it. None: not a repository file."""
    repo = repo_root(cwd)
    if repo is None:
        return None
    top = os.path.realpath(repo)
    tries = [arg] if os.path.isabs(arg) else [os.path.join(cwd, arg), os.path.join(top, arg)]
    rels = []
    for t in tries:
        rel = os.path.relpath(os.path.realpath(t), top).replace(os.sep, "/")
        if rel.startswith("../") or rel in ("..", ".") or rel.split("/")[0] == ".git":
            continue
        if os.path.isfile(t):
            return top, rel
        rels.append(rel)
    for rel in rels:
        if conn.execute("SELECT 1 FROM anchors WHERE file = ? LIMIT 1", (rel,)).fetchone():
            return top, rel
    return None


def rebase(conn, cache_dir: str, repo: str, path: str) -> None:
    """`validate`: the code a note cites, as it is now, becomes its baseline (for the anchors without a
    fingerprint of their own: paths, lines and symbols in its text)."""
    import sqlite3

    repo = os.path.realpath(repo)
    try:
        bases = open_bases(cache_dir)
        try:
            bases.execute("DELETE FROM base WHERE repo = ? AND note = ?", (repo, path))
        finally:
            bases.close()
    except sqlite3.Error:
        return
    note_states(conn, cache_dir, repo, [path])


def last_of(cache_dir: str, repo: str, paths: list[str]) -> dict[str, dict[str, tuple[str, float]]]:
    """{note: {file: (state, when it became that state)}}: the last judged state of each of these
    notes per file of `repo` (a file event, the SessionStart worker, explain), read only; notes never
    judged there are left out."""
    import sqlite3

    conn = _read_bases(cache_dir) if paths else None
    if conn is None:
        return {}
    from ..core.sqlutil import rows_in

    out: dict[str, dict[str, tuple[str, float]]] = {}
    try:
        for note, file, state, at in rows_in(
                conn, "SELECT note, file, state, at FROM last WHERE note IN ({in}) AND repo = ?", paths,
                (os.path.realpath(repo),)):
            out.setdefault(note, {})[file] = (state, at)
    except sqlite3.Error:
        return {}
    finally:
        conn.close()
    return out
