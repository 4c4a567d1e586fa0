"""The write path: typed memory notes, supersede / contradict / validate / retract, near-duplicates.
What a status, a supersession or a confidence means is index.lifecycle's.

Every write goes through `_write`: inside the vault, atomic, under the vault lock, then re-indexed
so the note is findable at once. Existing notes only ever get property lines changed
(`propedit`), or a dated section appended (`--merge`).
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import sqlite3
from pathlib import Path
TYPE_CHECKING = False  # importing typing costs every hook a few ms
if TYPE_CHECKING:
    from typing import Any, Iterable

from ..vault import propedit
from ..core import textutil
from ..core.config import Config
from ..core.errors import MemoryPluginError, VaultError
from ..core.fsutil import atomic_write
from ..index.lifecycle import parse_date, stored_confidence
from .vaultstyle import link_name

MEMORY_TYPES = ("decision", "pitfall", "pattern", "learning", "convention", "note")
RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
_BAD_CHARS = re.compile(r'[*"<>:|?#^\[\]\x00-\x1f]')


class MemoryWriteError(MemoryPluginError):
    pass


class DuplicateNote(MemoryPluginError):
    pass


# ---------------------------------------------------------------- near-duplicates (judged by dupes)

def find_similar(conn: sqlite3.Connection, me: "dupes.Doc", exclude: Iterable[str] = (),
                 limit: int = 5, cfg: Config | None = None, judged: dict | None = None,
                 successors: list | None = None) -> list[dict]:
    """Near-duplicates of a would-be note among the indexed (non-private) notes: FTS picks the
    candidates (and, in semantic mode, the notes closest in meaning), `dupes.judge` and
    `dupes.combine` decide. `judged`, when given, receives which judge ran ("semantic" or "lexical");
    `successors` the notes the would-be note reads as replacing (`dupes.supersession`), not duplicates."""
    from . import dupes

    sem = _semantic_vectors(cfg, conn, me) if cfg is not None else None
    if judged is not None:
        judged["judge"] = "semantic" if sem else "lexical"
    ws = [w for w in textutil.words(f"{me.title} {me.summary} {me.body}") if w not in textutil.STOPWORDS]
    ids: list[int] = []
    if ws:
        q = textutil.fts_or(list(dict.fromkeys(ws))[:40])
        # Rank on the FTS table alone (cheap at 10k notes), then read the best few.
        ids = [r[0] for r in conn.execute("SELECT rowid FROM fts WHERE fts MATCH ? "
                                          "ORDER BY bm25(fts, 4.0, 3.0, 2.0, 3.0, 1.0) LIMIT 40", (q,))]
    near: dict[str, float] = {}
    if sem:
        from . import dupes_sem

        vec, mat, paths, _ = sem
        near = dict(dupes_sem.similar(mat, vec, paths, dupes.SEM_CANDIDATE)[:40])
    if not ids and not near:
        return []
    if near:  # the notes closest in meaning join the FTS candidates by their ids
        ids = list(dict.fromkeys([*ids, *(r[0] for r in conn.execute(
            f"SELECT id FROM notes WHERE path IN ({','.join('?' * len(near))})", list(near)))]))
    # one `n.id IN (...)`: with an OR of two lists SQLite scanned the whole FTS table (15 ms at 10k notes)
    rows = conn.execute(
        f"SELECT n.path, n.title, n.display_title, n.type, n.project, n.summary, f.body, n.hash FROM notes n "
        f"JOIN fts f ON f.rowid = n.id WHERE n.id IN ({','.join('?' * len(ids))}) "
        f"AND n.private = 0 AND n.type != 'journal' AND n.skipped = 0", ids).fetchall()
    idf = dupes.Idf.from_index(conn)
    names = dupes.project_names(conn)
    me = dupes.Doc(me.title, me.type, dupes.canon_project(me.project, names), me.summary, me.body, me.titles)
    ex = set(exclude)
    others = [dupes.Doc(t, typ, dupes.canon_project(project, names), summary or "", body or "",
                        (dt,) if dt != t else (), path, h)
              for path, t, dt, typ, project, summary, body, h in rows if path not in ex]
    if not sem:  # the lexical judge: candidates too far from the note to be judged anything are not judged
        others = [o for o in others if not dupes.beyond_reach(me, o)]
    idf.prefetch(w for d in (me, *others) for w in (*d.title_terms().values(), *(r for _, r in d.text_tokens())))
    out = []
    for other in others:
        path, dt, typ = other.path, other.titles[0] if other.titles else other.title, other.type
        v = dupes.judge(me, other, idf, newer=True)
        if sem:
            cos = near.get(path)
            if cos is None and path in sem[3]:
                cos = float(sem[1][sem[3][path]] @ sem[0])
            v = dupes.combine(v, cos)
            if v.duplicate and not dupes.has_passage(v):  # no passage in common: the closest pair says why
                from . import dupes_sem

                v = dupes.quote_closest(v, dupes_sem.closest(cfg, me, other))
        if v.duplicate:
            out.append({"path": path, "title": dt, "type": typ, "score": v.score, "reasons": v.reasons,
                        "by": v.by})
        elif v.successor is not None and successors is not None:
            successors.append({"path": path, "title": dt, "type": typ, "because": v.successor})
    out.sort(key=lambda d: (-d["score"], d["path"]))
    return out[:limit]


def _semantic_vectors(cfg: Config, conn: sqlite3.Connection, me: "dupes.Doc"):
    """(my vector, the notes' vectors as rows, their paths, {path: row}) when semantic mode is on and
    the index holds this model's vectors; None otherwise (the lexical judge alone decides)."""
    from . import dupes_sem
    from ..semantic.vectors import SemanticUnavailable

    if not dupes_sem.active(cfg, conn):
        return None
    try:
        import numpy as np

        vec = dupes_sem.embed_doc(cfg, me)
        notes = dupes_sem.stored(conn)
    except SemanticUnavailable:
        return None
    paths = sorted(notes)
    mat = np.stack([notes[p] for p in paths]) if paths else np.zeros((0, vec.shape[0]), np.float32)
    return vec, mat, paths, {p: i for i, p in enumerate(paths)}


def same_name(conn: sqlite3.Connection, name: str, dialect: str = "") -> list[str]:
    """Notes whose file name is `name` up to case and Unicode form (Obsidian would confuse them). An
    ASCII name folds as it lowercases: the files of that lowercased name (the index's `name_lc`, a
    file's name except in Logseq) and the few named with other characters are all that can match, not
    every file of the vault (45 ms at 10,000 notes)."""
    key = textutil.fold(name) + ".md"
    return sorted(p for p, k in _name_rows(conn, key, dialect) if k == key)


def _name_rows(conn: sqlite3.Connection, key: str, dialect: str, prefix: bool = False) -> list[tuple[str, str]]:
    """(path, folded file name) of the files `same_name` reads for `key` (a folded name with .md), or
    with `prefix` for every key starting with `key`."""
    if key.isascii() and dialect != "logseq":
        # a name with a character beyond ASCII is longer in bytes than in characters: 3 ms at 10,000
        # files, where a GLOB for one read 11
        rows = conn.execute("SELECT path FROM files WHERE " + (
            "(name_lc >= ? AND name_lc < ?)" if prefix else "name_lc = ?") + " OR (name_lc LIKE '%.md' AND "
            "length(name_lc) != length(CAST(name_lc AS BLOB)))", (key, key + "\U0010ffff") if prefix else (key,))
    else:
        rows = conn.execute("SELECT path FROM files WHERE name_lc LIKE '%.md'")
    return [(p, textutil.fold(p.rsplit("/", 1)[-1])) for (p,) in rows]


# ---------------------------------------------------------------- file names and writing

# A file name is at most 255 bytes on Linux and macOS; atomic_write's temp name adds 14
# (".NAME.md.XXXXXXXX.tmp"), and ".md" 3 more.
NAME_MAX_BYTES = 255 - 14 - 3
# Characters that change text direction or are invisible: in a file name they make two different
# names look the same (or one look like another), so a title holding one is refused.
_BIDI = {"\u202a": "LEFT-TO-RIGHT EMBEDDING", "\u202b": "RIGHT-TO-LEFT EMBEDDING",
         "\u202c": "POP DIRECTIONAL FORMATTING", "\u202d": "LEFT-TO-RIGHT OVERRIDE",
         "\u202e": "RIGHT-TO-LEFT OVERRIDE", "\u2066": "LEFT-TO-RIGHT ISOLATE",
         "\u2067": "RIGHT-TO-LEFT ISOLATE", "\u2068": "FIRST STRONG ISOLATE",
         "\u2069": "POP DIRECTIONAL ISOLATE", "\u200e": "LEFT-TO-RIGHT MARK", "\u200f": "RIGHT-TO-LEFT MARK",
         "\u061c": "ARABIC LETTER MARK"}
_INVISIBLE = {"\u200b": "ZERO WIDTH SPACE", "\u200c": "ZERO WIDTH NON-JOINER", "\u200d": "ZERO WIDTH JOINER",
              "\u2060": "WORD JOINER", "\ufeff": "ZERO WIDTH NO-BREAK SPACE", "\u180e": "MONGOLIAN VOWEL SEPARATOR",
              "\u00ad": "SOFT HYPHEN", "\u034f": "COMBINING GRAPHEME JOINER"}


def _joiner_ok(t: str, i: int) -> bool:
    """ZWJ / ZWNJ between two non-ASCII letters, marks or symbols is spelling (Persian, Indic
    scripts, emoji sequences such as 👩‍💻), not a trick."""
    import unicodedata

    if t[i] not in "\u200c\u200d" or i == 0 or i == len(t) - 1:
        return False
    return all(ord(c) > 127 and unicodedata.category(c)[0] in "LMS" for c in (t[i - 1], t[i + 1]))


def check_title(title: str) -> None:
    """A one-line error for a title no file name should carry: direction overrides, invisible
    characters (other than joiners inside a word or an emoji)."""
    for i, c in enumerate(title):
        name = _BIDI.get(c) or (_INVISIBLE.get(c) if not _joiner_ok(title, i) else None)
        if name:
            raise MemoryWriteError(f"title contains U+{ord(c):04X} {name} (character {i + 1}), which hides "
                                   "or reorders text in file names: remove it")


def safe_filename(title: str) -> str:
    """A file name (without .md) for a title, or VaultError when the title would escape the vault."""
    t = title.strip()
    if not t:
        raise MemoryWriteError("empty title: give --title a few words naming the memory")
    check_title(t)
    if "/" in t or "\\" in t or t.startswith("~") or os.path.isabs(t) or re.match(r"^[A-Za-z]:", t):
        raise VaultError(f"title `{title}` contains a path (/, \\, ~ or a drive): "
                         "give a plain title; the folder comes from --type")
    if t in (".", "..") or t.startswith("."):
        raise VaultError(f"title `{title}` would make a hidden or special file: start it with a letter")
    name = _BAD_CHARS.sub(lambda m: " -" if m.group() == ":" else "", t)
    name = re.sub(r"\s+", " ", name).strip(" .")
    if not name:
        raise MemoryWriteError(f"title `{title}` has no usable characters: use letters or digits")
    if name.split(".")[0].lower() in RESERVED:
        raise VaultError(f"title `{title}` is a reserved file name on Windows: choose another title")
    name = name[:120].rstrip(" .")
    size = len(name.encode("utf-8"))
    if size > NAME_MAX_BYTES:
        raise MemoryWriteError(f"title makes a file name of {size} bytes in UTF-8; at most {NAME_MAX_BYTES} "
                               "fit: shorten the title")
    return name


def inside_vault(cfg: Config, rel: str) -> Path:
    vault = Path(os.path.realpath(cfg.vault))
    full = Path(os.path.realpath(vault / rel))
    if vault not in full.parents:
        raise VaultError(f"{rel} would be written outside the vault {cfg.vault}: check type_folders")
    return full


@contextlib.contextmanager
def vault_lock(cfg: Config, timeout: float = 30):
    """fsutil.vault_lock: the same lock SessionEnd's journal append takes. A SessionEnd that could not
    get it while we held it queued its journal line: appended once we release it (journal.hand_over),
    not left for the next session's hook."""
    from . import journal
    from ..core.fsutil import vault_lock as lock

    cfg.ensure_cache_dir()
    with lock(cfg.cache_dir, timeout=timeout):
        yield
    journal.hand_over(str(cfg.vault), str(cfg.cache_dir))


def _reindex(cfg: Config, rels: list[str]) -> None:
    from ..index.store import reindex

    reindex(cfg, rels)


def open_or_build(cfg: Config) -> sqlite3.Connection:
    from ..core.errors import IndexMissing
    from ..index.store import open_index, sync

    cfg.require_vault()
    try:
        return open_index(cfg)
    except IndexMissing:
        sync(cfg)
        return open_index(cfg)


def concept_mentions(conn: sqlite3.Connection, text: str, skip: set[str]) -> list[tuple[str, str]]:
    """Concept notes whose name or alias `text` mentions: [(path, matched words)]."""
    folded = textutil.fold(text)
    out = []
    for path, title, aliases in conn.execute(
            "SELECT path, title, aliases FROM notes WHERE type = 'concept' AND private = 0 ORDER BY path"):
        if path in skip:
            continue
        for name in [title, *json.loads(aliases or "[]")]:
            short = len(name) <= 3
            hay, needle = (text, name) if short else (folded, textutil.fold(name))
            if re.search(rf"(?<![^\W_]){re.escape(needle)}(?![^\W_])", hay):
                out.append((path, name))
                break
    return out


def read_text(path: Path, what: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise MemoryWriteError(f"{what} {path} cannot be read ({e.strerror}): check the path") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MemoryWriteError(f"{what} {path} is not UTF-8 text: convert it (iconv -t utf-8) and try again") from None


def remember(cfg: Config, *, type_: str, title: str, summary: str, tags: Iterable[str] = (),
             links: Iterable[str] = (), project: str | None = None, body: str | None = None,
             merge: str | None = None, force: bool = False, dry_run: bool = False,
             supersedes: str | None = None, today: _dt.date | None = None, about: Iterable[str] = (),
             cwd: str | None = None) -> dict:
    """Write a new typed memory note (or append to `merge`) in the vault's own style. Refuses a note
    of the same name (up to case and Unicode form) and near-duplicates unless forced. `about`: the
    code the memory is about, `PATH[:LINES]` of the git repository of `cwd` (default: the working
    folder), recorded with fingerprints in its `files:` property (memory/about.py)."""
    from . import dupes, vaultstyle
    from ..index.graph import find_note

    if type_ not in MEMORY_TYPES:
        raise MemoryWriteError(f"unknown type `{type_}`: use one of {', '.join(MEMORY_TYPES)}")
    # Control characters mean nothing in a heading or a property: spaces there, dropped from tags.
    title, summary = textutil.one_line(title), textutil.one_line(summary or "")
    project = textutil.one_line(project or "")
    if not summary:
        raise MemoryWriteError("empty summary: give --summary one sentence saying what to remember")
    name = safe_filename(title)
    tag_list = []
    for t in [type_] if type_ != "note" else []:
        tag_list.append(t)
    for t in tags:
        t = textutil.CONTROL_RE.sub("", t).strip().lstrip("#")
        if not t or re.search(r"[\s,\[\]{}]", t):
            raise MemoryWriteError(f"tag `{t}` is not a valid tag: use letters, digits, - _ and / only")
        if t.lower() not in {x.lower() for x in tag_list}:
            tag_list.append(t)
    today = today or _dt.date.today()
    if body and "\x00" in body:  # refused, not stored: see docs/guarantees.md
        raise MemoryWriteError("the body contains a NUL byte (a binary or UTF-16 file?): give UTF-8 text")
    body = (body or "").strip("\n")
    cited: list = []
    about = [a for a in about if a is not None]
    if about:  # checked before anything is written (its module, imported only then: 5 ms)
        from . import about as A

        cited = A.resolve(about, cwd or os.getcwd())
    conn = open_or_build(cfg)
    try:
        link_paths = []
        for ref in links:
            p = find_note(conn, ref)
            if p not in link_paths:
                link_paths.append(p)
        old = find_note(conn, supersedes) if supersedes else None
        if merge:
            target = find_note(conn, merge)
            return _merge(cfg, conn, target, title, summary, body, link_paths, today, dry_run, cited)
        style = vaultstyle.of(cfg, conn)
        folder = style.folder(cfg, type_).strip("/")
        name = style.file_name(name, type_)
        project_prop = vaultstyle.project_property(conn, project, style) if project else ("project", "")
        project_value = project_prop[1][0] if isinstance(project_prop[1], list) else project_prop[1]
        # judged before the vault lock: in semantic mode this loads the model (a second or two) and
        # SessionEnd's journal append may be waiting for the lock
        me = dupes.Doc(title, type_, project_value or None, summary, body)
        judged: dict = {}
        replaces: list = []
        dups = find_similar(conn, me, exclude=[old] if old else [], cfg=cfg, judged=judged,
                            successors=None if old else replaces)
        with vault_lock(cfg):
            taken = same_name(conn, name, style.dialect) + vaultstyle.same_name_on_disk(cfg, folder, name)
            taken = sorted(set(taken))
            if taken and _any_private(cfg, conn, taken):
                # nothing about the note holding the name: no path, no advice that would open it
                raise DuplicateNote("that title is taken: choose another")
            if taken and not force:
                p = taken[0]
                raise DuplicateNote(f"{p} already exists (the name differs at most in case or accents, which "
                                    f"Obsidian treats as the same note): use --merge '{p}' to add to it, "
                                    "--supersedes with another title to replace it, or --force to write "
                                    "a second note with a numbered name")
            if dups and not force:
                names = "; ".join(f"{d['path']} ({', '.join(d['reasons'])})" for d in dups[:3])
                raise DuplicateNote(f"near-duplicate of {names}: use --merge NOTE to add to it, "
                                    "--supersedes NOTE to replace it, or --force to write anyway")
            base, n = name, 2
            if taken:  # the numbered names' files read once (a query and a folder listing each: 5 ms)
                start = textutil.fold(base) + " "
                indexed = _name_rows(conn, start, style.dialect, prefix=True)
                on_disk = vaultstyle.names_on_disk(cfg, folder)
            while taken:
                name = f"{base} {n}"
                key = textutil.fold(name) + ".md"
                taken = (sorted(p for p, k in indexed if k == key) if key.startswith(start)
                         else same_name(conn, name, style.dialect)) + [p for p, k in on_disk if k == key]
                n += 1
            rel = f"{folder}/{name}.md" if folder else f"{name}.md"
            full = inside_vault(cfg, rel)
            mention_text = f"{title}\n{summary}\n{body}"
            concepts = concept_mentions(conn, mention_text, set(link_paths))
            old_link = f"[[{link_name(conn, old)}]]" if old else None
            text = _compose(conn, type_, title, name, summary, tag_list, project_prop, body, link_paths,
                            concepts, cfg, today, old_link, style, [d["entry"] for d in cited])
            result = {"path": rel, "title": title, "type": type_, "action": "created",
                      "links": link_paths, "concepts": [p for p, _ in concepts],
                      "overrode_duplicates": dups if force else [], "duplicate_judge": judged.get("judge"),
                      "replaces": sorted(replaces, key=lambda d: d["path"]),
                      "about": cited, "dry_run": dry_run}
            if dry_run:
                result["text"] = text
            else:
                atomic_write(full, text)
        if not dry_run:
            _reindex(cfg, [rel])  # outside the vault lock: SessionEnd's journal append may be waiting
        if old:
            result["superseded"] = _mark_superseded(cfg, old, f"[[{name}]]", dry_run, today)
        return result
    finally:
        conn.close()


def _compose(conn, type_, title, name, summary, tags, project, body, link_paths, concepts, cfg, today,
             supersedes: str | None = None, style: "vaultstyle.Style | None" = None,
             files: list[str] | None = None) -> str:
    """The new note's text in the vault's style (vaultstyle.Style): its spelling of the properties it
    shares with ours (`Tags`, `Date Created`), the properties most of its notes carry (an `Author`
    every note has, empty `Aliases` and `topics`), its category property in place of a type tag, an H1 only where
    its notes open with one; in Logseq, `key:: value` page properties and `- ` bullets. The lifecycle
    properties the index reads (type, status, confidence, last_validated...) keep their names; the
    summary takes the vault's spelling of it (`description`), which the index reads as one."""
    from . import vaultstyle

    st = style or vaultstyle.Style()
    title = title.strip()
    props: list[tuple[str, Any]] = [("type", type_)]
    if name != title or "title" in st.schema:
        props.append((st.key("title"), title))
    props.append((st.key("summary"), summary))
    if st.category_key:
        props.append((st.category_key, [vaultstyle.category_value(conn, type_)]))
        tags = [t for t in tags if t != type_]  # the category says what the note is
    if tags or not st.category_key or "tags" in st.schema:
        props.append((st.key("tags"), tags))
    props.append((st.key("created"), today))
    if "modified" in st.keys:
        props.append((st.key("modified"), today))
    props += st.constants
    props += st.named_values(title)
    # a property of the vault's note shape left empty (`projects: []`) holds the project where it names it
    props += [(k, v) for k, v in st.empty if not (project and project[1] and k.lower() == project[0].lower())]
    if "aliases" in st.schema:
        props.append((st.key("aliases"), []))
    props += [("last_validated", today), ("confidence", round(float(cfg.confidence_default), 2)),
              ("status", "open" if type_ == "pitfall" else "current")]
    if project and project[1]:  # (key, value): the vault's spelling (vaultstyle.project_property)
        props.append(project)
    if supersedes:
        props.append(("supersedes", supersedes))
    if link_paths:
        props.append(("related", [f"[[{link_name(conn, p)}]]" for p in link_paths]))
    if files:
        props.append(("files", files))
    if st.dialect == "dendron":
        props = _dendron_props(props, title, summary, st)
    text = body if body else summary
    concept_line = ""
    if concepts:
        parts = []
        for p, matched in concepts:
            ln = link_name(conn, p)
            parts.append(f"[[{ln}]]" if textutil.fold(matched) == textutil.fold(ln.rsplit('/', 1)[-1])
                         else f"[[{matched}|{ln}]]" if st.dialect == "dendron"  # Dendron: label first
                         else f"[[{ln}|{matched}]]")
        concept_line = "Concepts: " + ", ".join(parts)
    if st.outliner:
        lines = [f"{k}:: {_outline_value(v)}" for k, v in props if v not in ([], "")]
        lines += _bullets(text)
        if concept_line:
            lines.append("- " + concept_line)
        return "\n".join(lines).rstrip("\n") + "\n"
    lines = ["---"] + [f"{k}: {propedit.render(v)}" for k, v in props] + ["---"]
    if st.h1:
        lines.append(f"# {title}")
    lines += ["", text] if st.h1 else [text]
    if concept_line:
        lines += ["", concept_line]
    return "\n".join(lines).rstrip("\n") + "\n"


def _dendron_props(props: list[tuple[str, Any]], title: str, summary: str, st) -> list[tuple[str, Any]]:
    """Dendron's own frontmatter first, as Dendron writes it in every note: a random `id`, `title`,
    `desc` (its summary), `updated` and `created` in epoch milliseconds; then the other properties."""
    import secrets
    import time

    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    ms = int(time.time() * 1000)
    own = {st.key("title"), "summary", st.key("summary"), st.key("created"), st.key("modified"), "id", "desc"}
    return ([("id", "".join(secrets.choice(alphabet) for _ in range(23))), ("title", title), ("desc", summary),
             ("updated", ms), ("created", ms)] + [(k, v) for k, v in props if k not in own])


def _outline_value(v: Any) -> str:
    """A Logseq page property's value: a list as comma-separated items, a date as ISO, on one line."""
    if isinstance(v, (list, tuple)):
        return ", ".join(_outline_value(x) for x in v)
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    if isinstance(v, bool):
        return "true" if v else "false"
    return textutil.one_line(str(v))


def _bullets(text: str) -> list[str]:
    """Markdown text as Logseq blocks: each paragraph a `- ` bullet, its further lines indented under it
    (a list item already written as one stays one)."""
    out: list[str] = []
    for para in re.split(r"\n[ \t]*\n", text.strip("\n")):
        lines = para.split("\n")
        if not para.strip():
            continue
        first = lines[0]
        out.append(first if re.match(r"\s*[-*+] ", first) else f"- {first}")
        out += [ln if re.match(r"\s*[-*+] ", ln) else f"  {ln}" for ln in lines[1:]]
    return out


def _merge(cfg, conn, target, title, summary, body, link_paths, today, dry_run, cited=()) -> dict:
    full = inside_vault(cfg, target)
    with vault_lock(cfg):
        old = read_text(full, "note")
        files = None
        if cited:  # the code the added section is about joins the note's `files:`
            from . import about as A

            props = _props_of(cfg, target, old)
            key = A.files_key(props) or "files"
            files = (key, A.merged(props.get(key), cited))
        nl = propedit._newline(old)
        section = [f"## {today.isoformat()}: {title.strip()}", "", summary]
        if body:
            section += ["", body]
        if link_paths:
            section += ["", "See " + ", ".join(f"[[{link_name(conn, p)}]]" for p in link_paths)]
        sep = "" if old.endswith(("\n", "\r")) or not old else nl
        new = old + sep + nl + nl.join(section) + nl
        if files:
            new = propedit.set_props(new, [files])
        if not dry_run:
            atomic_write(full, new)
    # the diff and the reindex outside the vault lock: SessionEnd's journal append may be waiting
    result = {"path": target, "title": title, "action": "merged", "links": link_paths,
              "diff": _diff(cfg, conn, target, old, new), "about": list(cited), "dry_run": dry_run}
    if not dry_run:
        _reindex(cfg, [target])
    return result


def _any_private(cfg: Config, conn: sqlite3.Connection, paths: list[str]) -> bool:
    """Whether one of `paths` is a private note by the index or by its file (one that cannot be read
    counts as private: its last state may have been)."""
    from ..vault.privacy import file_says_private

    marks = ",".join("?" * len(paths))
    if conn.execute(f"SELECT 1 FROM notes WHERE private = 1 AND path IN ({marks})", paths).fetchone():
        return True
    return any(file_says_private(os.path.join(cfg.vault, p)) is not False for p in paths)


def _diff(cfg: Config, conn: sqlite3.Connection | None, rel: str, old: str, new: str) -> str:
    """The diff of a write. Of a private note only the added lines (what the command was given) are
    shown: no context, no removed line and no line number, which would show or hint at its text."""
    from ..vault.privacy import head_says_private

    d = propedit.diff(rel, old, new)
    private = head_says_private(old.encode("utf-8"), complete=True) or (conn is not None and bool(
        conn.execute("SELECT 1 FROM notes WHERE path = ? AND private = 1", (rel,)).fetchone()))
    if not private or not d:
        return d
    lines = d.splitlines(keepends=True)
    return "".join(lines[:2] + [ln for ln in lines[2:] if ln.startswith("+")])


# ---------------------------------------------------------------- changing a memory

def _props_of(cfg: Config, rel: str, text: str) -> dict:
    from ..vault.notes import parse_note

    return parse_note(rel, text.encode("utf-8"), cfg.values, read_private=True).props


def edit_notes(cfg: Config, edits: dict[str, Any], dry_run: bool = False, retext: dict[str, Any] | None = None
               ) -> list[dict]:
    """Apply property changes to several notes under one vault lock.

    `edits` maps a vault-relative path to a function(props) -> [(key, value)]; `retext`, optionally,
    to a function(text, props) -> (text, what it found) applied after them (validate's fingerprints)."""
    out, written = [], []
    with vault_lock(cfg):
        plans = []
        for rel, fn in edits.items():
            full = inside_vault(cfg, rel)
            old = read_text(full, "note")
            props = _props_of(cfg, rel, old)
            changes = fn(props)
            found = None
            try:
                new = propedit.set_props(old, changes) if changes else old
                if retext and rel in retext:
                    new, found = retext[rel](new, props)
            except propedit.PropEditError as e:  # a private note is not named, even to its owner's ref
                from ..vault.privacy import says_private
                raise propedit.PropEditError(f"{'that note' if says_private(old) else rel}: {e}") from None
            plans.append((rel, full, old, new, changes, found))
        for rel, full, old, new, changes, found in plans:
            out.append({"path": rel, "changed": {k: propedit.render(v) for k, v in changes},
                        "diff": _diff(cfg, None, rel, old, new), "dry_run": dry_run})
            if found is not None:
                out[-1]["code"] = found
                if any(a["recorded"] for a in found["anchors"]):
                    out[-1]["changed"]["fp"] = ", ".join(a["cite"] for a in found["anchors"] if a["recorded"])
            if not dry_run and new != old:
                atomic_write(full, new)
                written.append(rel)
    if written:  # outside the vault lock
        _reindex(cfg, written)
    return out


def _find(cfg: Config, *refs: str) -> list[str]:
    from ..index.graph import find_note

    conn = open_or_build(cfg)
    try:
        return [find_note(conn, r) for r in refs]
    finally:
        conn.close()


def _link(cfg: Config, path: str) -> str:
    conn = open_or_build(cfg)
    try:
        return f"[[{link_name(conn, path)}]]"
    finally:
        conn.close()


def _add_link(props: dict, key: str, link: str) -> list | str:
    cur = [str(v) for v in propedit.as_list(props.get(key))]
    if any(textutil.fold(c) == textutil.fold(link) for c in cur):
        return cur if len(cur) != 1 else cur[0]
    return link if not cur else cur + [link]


def _mark_superseded(cfg: Config, old: str, new_link: str, dry_run: bool, today: _dt.date) -> list[dict]:
    return edit_notes(cfg, {old: lambda p: [("status", "superseded"), ("valid_to", today),
                                            ("superseded_by", _add_link(p, "superseded_by", new_link))]}, dry_run)


def supersede(cfg: Config, old_ref: str, new_ref: str, dry_run: bool = False,
              today: _dt.date | None = None) -> list[dict]:
    old, new = _find(cfg, old_ref, new_ref)
    if old == new:
        raise MemoryWriteError(f"{old} cannot supersede itself: name the newer note second")
    today = today or _dt.date.today()
    lo, ln = _link(cfg, old), _link(cfg, new)
    return edit_notes(cfg, {
        old: lambda p: [("status", "superseded"), ("valid_to", today), ("superseded_by", _add_link(p, "superseded_by", ln))],
        new: lambda p: [("supersedes", _add_link(p, "supersedes", lo))],
    }, dry_run)


def contradicts(cfg: Config, a_ref: str, b_ref: str, dry_run: bool = False) -> list[dict]:
    a, b = _find(cfg, a_ref, b_ref)
    if a == b:
        raise MemoryWriteError(f"{a} cannot contradict itself: name two different notes")
    lb = _link(cfg, b)
    return edit_notes(cfg, {a: lambda p: [("contradicts", propedit.as_list(_add_link(p, "contradicts", lb)))]},
                      dry_run)


def validate(cfg: Config, ref: str, dry_run: bool = False, today: _dt.date | None = None,
             cwd: str | None = None) -> list[dict]:
    """Confirm a note still holds: last_validated today, confidence raised (once a day), and the
    fingerprints of the code it is about (`files:` ... fp=) recorded again from that code as it is
    now in the git repository of `cwd` (default: the working folder)."""
    from . import about as A
    from ..index.code import repo_root

    (path,) = _find(cfg, ref)
    today = today or _dt.date.today()
    repo = repo_root(cwd or os.getcwd())

    def change(p):
        status = str(p.get("status") or "").lower()
        if status in ("superseded", "retracted"):
            raise MemoryWriteError(f"{path} is {status}: validate its successor, or remember a new note")
        if parse_date(p.get("last_validated")) == today:
            return []  # validated today already: confidence rises at most once a day
        c = stored_confidence(cfg, p)
        return [("last_validated", today), ("confidence", round(min(1.0, c + 0.1), 2))]

    def code(text, p):  # a private note's citations are neither printed nor re-recorded
        from ..vault.privacy import says_private

        return (text, None) if says_private(text) else A.refresh(text, p, repo)

    out = edit_notes(cfg, {path: change}, dry_run, retext={path: code})
    if repo and not dry_run:  # the code it cites without a fingerprint: as it is now, too
        from ..index.code import rebase

        conn = open_or_build(cfg)
        try:
            rebase(conn, str(cfg.cache_dir), repo, path)
        finally:
            conn.close()
    return out


def retract(cfg: Config, ref: str, dry_run: bool = False, today: _dt.date | None = None) -> list[dict]:
    (path,) = _find(cfg, ref)
    today = today or _dt.date.today()
    return edit_notes(cfg, {path: lambda p: [("status", "retracted"), ("valid_to", today)]}, dry_run)
