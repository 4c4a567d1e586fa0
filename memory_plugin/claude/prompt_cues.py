"""What a prompt names in the code, and the notes that cite or quote it (the prompt hook's precise half).

A prompt can name three things a note is tied to by construction:
- a repository file: `middleware/timeout.go`, `timeout.go:39`, `ci.yml` (a path with a folder, or a
  name with a source or text file's extension; a line after it) that the repository has; matched
  against the files notes cite (the `anchors` table), either written as a tail of the other
  (`routing.py` ~ `starlette/routing.py`);
- a symbol: `` `wrapped_receive` ``, `Mux.ServeHTTP`, `Mount()`, `walkXFF`; matched against the
  symbols notes cite (`Class.method()`, `function()`), of a note tied to the repository (it cites one
  of its files or belongs to the session's project);
- an error message: the text after a label (`panic: ...`, `KeyError: ...`, "fails with: ..."), a
  quoted message, or a pasted line after the first; matched by phrase (FTS5) against the notes' text:
  a note that quotes at least MIN_RUN words of it in a row (with or without a repository).
How strong each cue is decides how much of the note the hook shows (prompt_hook.py): a line range that
holds the line named, a quoted message, a backticked, qualified or compound symbol are strong; a file,
a call of a plain word (`Group(`), `pkg.Name` are weaker (a pointer).

Standard library only (the prompt hook runs it on every prompt); a few indexed queries per prompt.
"""
from __future__ import annotations

import os
import re

MAX_FILES = 8            # file cues read from one prompt
MAX_SYMBOLS = 16         # symbol cues
PHRASE_WORDS = 4         # a message is looked up by runs of this many words ...
PHRASE_STRIDE = 3        # ... taken every this many words (MIN_RUN >= PHRASE_WORDS + PHRASE_STRIDE - 1)
MAX_WINDOWS = 16         # ... at most this many lookups per prompt (a pasted log is long)
MAX_CANDIDATES = 50      # notes whose text is read for the exact run
MIN_RUN = 6              # words in a row a note must share with a message to quote it
MIN_RUN_CONTENT = 2      # ... of which at least this many are no stop words ("it is not in the")
RUN_SHARE = 0.6          # a note quoting a message quotes at least this share of the longest run found
SLOT_WORDS = 2           # a run stopping this few words before the message's end, where the note goes on
                         # with other words, is the message with another value (another key, property)
MAX_FILE_NOTES = 2       # a file more notes cite than this is common ground (`package.json`): naming it
                         # singles out none of them, unless the line named lies in a range one cites
# weights of the evidence, to order the notes found (the strongest first)
WEIGHT = {"lines": 4.0, "message": 3.0, "symbol": 2.0, "call": 1.0, "file": 1.0}
STRONG = frozenset({"lines", "message", "symbol"})

_QUOTED_RES = (re.compile(r"(?<![\w'])'([^'\n]{6,300})'(?![\w'])"), re.compile(r'"([^"\n]{6,300})"'),
               re.compile(r"“([^”\n]{6,300})”"), re.compile(r"`([^`\n]*\s[^`\n]*)`"))
_LABEL_RE = re.compile(r":\s+(\S.*)$")
# a prompt that could name a file or a symbol has one of these (a dot in a word, a backtick, a call, a
# snake_case or camelCase word): the others skip the patterns below and vault/anchors.py's import
_MAYBE_CODE_RE = re.compile(r"\w\.[A-Za-z]|`|\w\(|[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]")
_RX: dict[str, re.Pattern] = {}


def _rx() -> dict[str, re.Pattern]:
    """The file and symbol patterns, compiled on first use (a path as notes write one, vault/anchors.py,
    with an extension, then :10 / :10-20 / #L10 / #L10-L20; a dotted name, maybe called)."""
    if not _RX:
        from ..vault import anchors as A

        _RX["file"] = re.compile(rf"(?<![\w/.@:-])((?:\.{{0,2}}/)?(?:{A._SEG}/)*{A._SEG}\.[A-Za-z]\w{{0,9}})"
                                 r"(?::(\d+)(?:[-–](\d+))?|#L(\d+)(?:-L?(\d+))?)?(?![\w/])")
        _RX["symbol"] = re.compile(r"(?<![\w.`/-])((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)(\((?:\.\.\.|…)?\)|\()?")
    return _RX


def _strip_code_path(p: str) -> str:
    while p.startswith("./"):
        p = p[2:]
    return p


def files(prompt: str, repo: str | None = None) -> list[tuple[str, int | None]]:
    """(path as written, a line named after it or None): the files the prompt names, at most MAX_FILES.
    An absolute path inside `repo` is made relative to it."""
    out: list[tuple[str, int | None]] = []
    if not _MAYBE_CODE_RE.search(prompt):
        return out
    from ..vault import anchors as A

    for m in _rx()["file"].finditer(prompt):
        raw = m.group(1)
        if raw.startswith("/") and repo:
            try:
                rel = os.path.relpath(raw, repo).replace(os.sep, "/")
            except ValueError:
                continue
            if rel.startswith("../"):
                continue
            raw = rel
        path = A._clean_path(_strip_code_path(raw))
        if path is None or "://" in prompt[max(m.start() - 12, 0):m.start()]:
            continue  # a URL's host or path is no repository file
        line = m.group(2) or m.group(4)
        out.append((path, int(line) if line else None))
        if len(out) >= MAX_FILES:
            break
    return out


def symbols(prompt: str) -> list[tuple[str | None, str, str]]:
    """(class or None, name, strength): the symbols the prompt names, at most MAX_SYMBOLS. "symbol"
    (strong): in backticks, `Class.name`, or a compound identifier (`walk_xff`, `walkXFF`); "call"
    (weaker): a plain word called with no arguments written (`Mount()`, `r.NotFound(...)`, the way
    notes cite a function) or an exported name of a package (`chi.URLParam`, `r.Group`). A call with
    its arguments (`r.Use(middleware.Compress(5))`) is code that uses the function, not a name."""
    out: dict[tuple[str | None, str], str] = {}
    if not _MAYBE_CODE_RE.search(prompt):
        return []
    from ..core.textutil import identifier_like
    from ..vault import anchors as A

    def add(qual, name, strength):
        key = (qual, name)
        if out.get(key) != "symbol":
            out[key] = strength

    spans = []
    for m in A.CODE_SPAN_RE.finditer(prompt):
        spans.append((m.start(), m.end()))
        sm = A.SYMBOL_RE.match(m.group(1).strip())
        if sm:
            quals = [q for q in sm.group(1).split(".") if q]
            qual = quals[-1] if quals and quals[-1][:1].isupper() else None
            add(qual, sm.group(2), "symbol")
    for m in _rx()["symbol"].finditer(prompt):
        if any(a <= m.start() < b for a, b in spans):
            continue
        quals = [q for q in m.group(1).split(".") if q]
        name, paren = m.group(2), m.group(3) or ""
        qual = quals[-1] if quals else None
        if qual and qual[:1].isupper() and name[:1].isalpha():
            add(qual, name, "symbol")  # Context.Clone, Mux.ServeHTTP
        elif identifier_like(name) and not name.isdigit() and re.search(r"[A-Za-z]", name):
            add(None, name, "symbol")  # walkXFF, wrapped_receive, RouteHeaders
        elif paren == "(":
            continue                   # r.Use(middleware.Compress(5)): code that calls it
        elif paren or (qual and name[:1].isupper()):
            add(None, name, "call")    # Mount(), r.NotFound(...), r.Group, chi.URLParam
        if len(out) >= MAX_SYMBOLS:
            break
    return [(q, n, s) for (q, n), s in out.items()]


def messages(prompt: str) -> list[str]:
    """The parts of the prompt that may be a message copied from a program: quoted text, the text after
    a colon ("panic: ...", "KeyError: ...", "it fails at startup with: ..."), and every line after the
    first (a pasted log or traceback). Only a note that quotes MIN_RUN of their words in a row is
    found by them, so a colon in prose costs a few lookups, not a false item."""
    out: list[str] = []
    for i, line in enumerate(prompt.split("\n")):
        for rx in _QUOTED_RES:
            out += [m.group(1) for m in rx.finditer(line)]
        m = _LABEL_RE.search(line)
        if m:
            out.append(m.group(1))
        elif i and line.strip():
            out.append(line)
    return out


# ---------------------------------------------------------------- the notes that cite or quote them

def _tails_sql(paths: list[str]) -> tuple[str, list]:
    """WHERE clause: an anchor's file is a tail of a named path, or a named path a tail of it."""
    from ..index.code import tails

    exact = sorted({t for p in paths for t in tails(p)})
    likes = sorted({p for p in paths})
    sql = "a.file IN (" + ",".join("?" * len(exact)) + ")"
    args: list = list(exact)
    for p in likes:
        sql += " OR a.file LIKE ? ESCAPE '\\'"
        args.append("%/" + p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_"))
    return sql, args


def _meets(anchor_file: str, named: str) -> bool:
    return anchor_file == named or anchor_file.endswith("/" + named) or named.endswith("/" + anchor_file)


def _longest_run(ws: list[str], note: list[str], stop: frozenset) -> int:
    """The longest run of consecutive words of `ws` that `note` has in a row, among the runs holding
    at least MIN_RUN_CONTENT words that are no stop words ("it is not in the" is in any text) and not
    ending 1 to SLOT_WORDS words before the message does (the same message with another value in it:
    "Cannot read properties of undefined (reading 'map')" is not the note's "(reading 'mode')")."""
    at: dict[str, list[int]] = {}
    for i, w in enumerate(note):
        at.setdefault(w, []).append(i)
    content = [0]
    for w in ws:
        content.append(content[-1] + (w not in stop))
    best = 0
    prev: dict[int, int] = {}  # position in the note -> length of the run ending there
    for k, w in enumerate(ws):
        cur = {j: prev.get(j - 1, 0) + 1 for j in at.get(w, ())}
        slot = 0 < len(ws) - (k + 1) <= SLOT_WORDS
        for j, n in cur.items():
            goes_on = k + 1 < len(ws) and j + 1 < len(note)
            if goes_on and note[j + 1] == ws[k + 1]:
                continue  # not the run's end: judged there
            if n > best and content[k + 1] - content[k + 1 - n] >= MIN_RUN_CONTENT and not (slot and goes_on):
                best = n
        prev = cur
    return best


def _quoted(conn, texts: list[str]) -> dict[str, int]:
    """{note path: the longest run of a message's words (>= MIN_RUN) the note has in a row}, public
    notes only (RUN_SHARE compares them with each other: a private note's text must not decide). FTS5
    finds the notes holding a run of PHRASE_WORDS of them, taken every PHRASE_STRIDE words (any run of
    MIN_RUN words holds one), at most MAX_WINDOWS lookups and MAX_CANDIDATES notes; each note's text
    then gives the exact run."""
    from ..core.textutil import STOPWORDS, words

    runs = [ws for ws in (words(t) for t in texts) if len(ws) >= MIN_RUN]
    cands: set[int] = set()
    budget = MAX_WINDOWS
    for ws in runs:
        for i in range(0, len(ws) - PHRASE_WORDS + 1, PHRASE_STRIDE):
            win = ws[i:i + PHRASE_WORDS]
            if budget <= 0 or len(cands) >= MAX_CANDIDATES:
                break
            if all(w in STOPWORDS for w in win):
                continue  # "it is not in": in every note that has any text
            budget -= 1
            try:
                cands.update(r[0] for r in conn.execute("SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?",
                                                        (f'"{" ".join(win)}"', MAX_CANDIDATES)))
            except Exception:  # noqa: BLE001 - an odd token FTS5 refuses: that phrase finds nothing
                continue
    if not cands:
        return {}
    from ..core.sqlutil import rows_in

    best: dict[str, int] = {}
    for rid, path, title, summary, body in rows_in(
            conn, "SELECT n.id, n.path, f.title, f.summary, f.body FROM fts f JOIN notes n ON n.id = f.rowid"
                  " WHERE f.rowid IN ({in}) AND n.private = 0 AND n.skipped = 0 AND coalesce(n.type, '') != 'journal'",
            sorted(cands)):
        note = words(" ".join(x or "" for x in (title, summary, body)))
        for ws in runs:
            n = _longest_run(ws, note, STOPWORDS)
            if n >= MIN_RUN:
                best[path] = max(best.get(path, 0), n)
    # the notes that quote the message, not one that shares a URL or a call with it
    top = max(best.values(), default=0)
    return {p: n for p, n in best.items() if n >= RUN_SHARE * top}


def belongs(conn, path: str, project: str | None) -> bool:
    """Does the note belong to `project` (query's rule: its `project` property, a folder of that name,
    or the project's hub)?"""
    from ..core import textutil as T
    from ..search import query as Q

    row = Q._fetch_rows(conn, [path]).get(path) if project else None
    return bool(row) and Q._in_project(row, T.fold(project))


def _tied(conn, paths: list[str], repo: str, project: str | None) -> set[str]:
    """The notes among `paths` tied to this repository: they cite one of its files, or belong to the
    project the session works in. A name alone is not (`JSON.parse` in a note about Ruby is not this
    JavaScript repository's)."""
    from ..core.sqlutil import rows_in

    out = {p for p, f in rows_in(conn, "SELECT path, file FROM anchors WHERE file IS NOT NULL AND path IN ({in})",
                                 paths) if os.path.isfile(os.path.join(repo, f))}
    return out | {p for p in paths if p not in out and belongs(conn, p, project)}


def cited(conn, prompt: str, repo: str | None = None, project: str | None = None) -> list[dict]:
    """The notes the prompt names by a file, a symbol or a message they cite or quote, strongest
    first: [{path, weight, strong, why}]. Private notes, journal notes and notes of another project
    never."""
    from ..core.sqlutil import rows_in
    from ..index.code import ANCHOR_COLS, _row, same_project

    found: dict[str, dict] = {}

    def hit(path: str, kind: str, why: str, weight: float | None = None):
        f = found.setdefault(path, {"path": path, "weight": 0.0, "kinds": set(), "why": []})
        f["weight"] += WEIGHT[kind] if weight is None else weight
        f["kinds"].add(kind)
        if why not in f["why"]:
            f["why"].append(why)

    # files and symbols are a repository's: without one (no git checkout; eval --prompts) only messages
    cites = repo and _MAYBE_CODE_RE.search(prompt) and conn.execute("SELECT 1 FROM anchors LIMIT 1").fetchone()
    named_files = files(prompt, repo) if cites else []
    if named_files:
        sql, args = _tails_sql([p for p, _ in named_files])
        by_file: dict[str, set[str]] = {}  # a named file -> the notes citing it
        whole: list[tuple[str, str]] = []
        for r in conn.execute(f"SELECT {ANCHOR_COLS} FROM anchors a WHERE a.file IS NOT NULL AND ({sql})", args):
            a = _row(r)
            for p, line in named_files:
                if not _meets(a["file"], p):
                    continue
                if not any(os.path.isfile(os.path.join(repo, f)) for f in (a["file"], p)):
                    continue  # a path that is no file of this repository (`application/json`, another project's)
                inside = line is not None and a["kind"] == "lines" and a["line1"] <= line <= (a["line2"] or a["line1"])
                by_file.setdefault(p, set()).add(a["path"])
                if inside:
                    hit(a["path"], "lines", f"{p}:{line}")
                else:
                    whole.append((p, a["path"]))
        for p, path in whole:
            if len(by_file[p]) <= MAX_FILE_NOTES:
                hit(path, "file", p)
    syms = symbols(prompt) if cites else []
    if syms:
        by_name: dict[str, list[tuple[str | None, str]]] = {}
        for q, n, s in syms:
            by_name.setdefault(n, []).append((q, s))
        named_syms: list[tuple[str, str, str]] = []  # (note, strength, symbol as the note wrote it)
        for r in rows_in(conn, f"SELECT {ANCHOR_COLS} FROM anchors a WHERE a.kind = 'symbol' AND a.symbol IN ({{in}})",
                         list(by_name)):
            a = _row(r)
            for q, s in by_name[a["symbol"]]:
                if q and a["qual"] and q != a["qual"]:
                    continue
                named_syms.append((a["path"], s, ".".join(x for x in (a["qual"], a["symbol"]) if x)))
        tied = _tied(conn, sorted({n for n, _, _ in named_syms}), repo, project)
        for path, strength, shown in named_syms:
            if path in tied:
                hit(path, strength, shown)
    msgs = messages(prompt)
    if msgs:
        for path, run in _quoted(conn, msgs).items():
            hit(path, "message", "quotes this message", WEIGHT["message"] + run / 10)
    if not found:
        return []
    meta = {p: (proj, priv, typ) for p, proj, priv, typ in rows_in(
        conn, "SELECT path, project, private, type FROM notes WHERE path IN ({in})", list(found))}
    out = []
    for path, f in found.items():
        if path not in meta:
            continue
        proj, priv, typ = meta[path]
        if priv or typ == "journal" or not same_project(proj, project, repo or ""):
            continue
        f["strong"] = bool(f["kinds"] & STRONG)
        out.append(f)
    out.sort(key=lambda f: (not f["strong"], -f["weight"], f["path"]))
    return out


def code_states(conn, cache_dir: str, repo: str, paths: list[str]) -> dict[str, str]:
    """{note: state of the code it cites in `repo`} for the notes among `paths` that cite some of it:
    judged now (index/code.judge: the note's fingerprints and quotes, else the code as the session
    first found it) in the repository files the note cites, with the symbols it cites that those files
    mention; a note citing symbols only gets the state the plugin last found (index/code.last_states:
    the code hook and SessionStart judge them), not a search of the whole repository (note_states'
    `git grep`, a few hundred milliseconds in a Go repository: the prompt hook's budget is 120)."""
    from ..core.sqlutil import rows_in
    from ..index import code

    repo = os.path.realpath(repo)
    anchors: dict[str, list[dict]] = {}
    for r in rows_in(conn, f"SELECT {code.ANCHOR_COLS} FROM anchors a WHERE a.path IN ({{in}})", paths):
        a = code._row(r)
        anchors.setdefault(a["path"], []).append(a)
    out: dict[str, str] = {}
    last = None
    for path, rows in anchors.items():
        files = sorted({a["file"] for a in rows if a["file"] and os.path.isfile(os.path.join(repo, a["file"]))})
        if not files:
            if any(a["kind"] == "symbol" for a in rows):
                last = code.last_states(cache_dir, repo) if last is None else last
                if path in last:
                    out[path] = last[path]
            continue
        states = []
        for rel in files:
            text = code.read_code(os.path.join(repo, rel))
            if text is None:
                continue
            mine = [a for a in rows if a["file"] == rel or (
                a["kind"] == "symbol" and re.search(rf"\b{re.escape(a['symbol'])}\b", text))]
            n = {"path": path, "anchors": mine}
            code.judge(cache_dir, repo, rel, text, [n], record=True)
            states.append(n["state"])
        if states:
            out[path] = ("changed" if "changed" in states else "moved" if "moved" in states else
                         "missing" if all(s == "missing" for s in states) else "current")
    return out
