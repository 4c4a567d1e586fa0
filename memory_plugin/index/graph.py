"""The knowledge graph: SQL views over the index for the fast paths, networkx for `path`.

networkx is imported only inside the functions that need it (it costs ~150 ms to import);
communities and graph.json come from graphdata's compact arrays.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sqlite3
from typing import Any

from ..core.config import Config
from ..core.errors import NoteNotFound
from ..core.sqlutil import rows_in

EDGE_TYPE = {"link": "links_to", "mdlink": "links_to", "embed": "embeds"}


def edge_type(kind: str, prop: str | None) -> str:
    return prop if kind == "property" and prop else EDGE_TYPE.get(kind, "links_to")


def tag_id(tag: str) -> str:
    return f"tag:{tag.lower()}"


def unresolved_id(linkpath: str) -> str:
    return f"unresolved:{linkpath.lower()}"


# ---------------------------------------------------------------- SQL helpers (no networkx)

def _rows(conn: sqlite3.Connection, sql: str, args=()) -> list[dict]:
    cur = conn.execute(sql, args)
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


_degrees_memo: dict | None = None  # while outputs are written: (generation, changed_at) -> degrees


def degrees(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """path -> (distinct notes linking in, distinct notes linked out); self links and links from
    journal notes left out. Links are read in source order, so the distinct targets of one source
    are one small set at a time (no set of every pair). Within `memo_degrees()` the result is kept
    for the index state it was read from (the report and the brief both rank hubs by it)."""
    key = None
    if _degrees_memo is not None:
        key = tuple(r[0] for r in conn.execute(
            "SELECT value FROM meta WHERE key IN ('generation', 'changed_at') ORDER BY key"))
        if key in _degrees_memo:
            return _degrees_memo[key]
    journal = {p for (p,) in conn.execute("SELECT path FROM notes WHERE type = 'journal'")}
    notes = {p for (p,) in conn.execute("SELECT path FROM files WHERE is_note = 1")}
    inn: dict[str, int] = {}
    out: dict[str, int] = {}

    def count(src: str, targets: set[str]) -> None:
        from_journal = src in journal
        n = 0
        for t in targets:
            if not from_journal:
                inn[t] = inn.get(t, 0) + 1
            if t in notes:
                n += 1
        if n:
            out[src] = n

    src, targets = None, set()
    for s, t in conn.execute("SELECT src, target FROM links WHERE target IS NOT NULL AND src != target "
                             "ORDER BY src"):
        if s != src:
            if src is not None:
                count(src, targets)
            src, targets = s, set()
        targets.add(t)
    if src is not None:
        count(src, targets)
    result = {p: (inn.get(p, 0), out.get(p, 0)) for p in inn.keys() | out.keys()}
    if key is not None:
        _degrees_memo.clear()
        _degrees_memo[key] = result
    return result


@contextlib.contextmanager
def memo_degrees():
    """Keep `degrees` for the index state it was read from, while the outputs are written."""
    global _degrees_memo
    outer = _degrees_memo
    _degrees_memo = {} if outer is None else outer
    try:
        yield
    finally:
        _degrees_memo = outer


def note_degree(conn: sqlite3.Connection, path: str) -> tuple[int, int]:
    """One note's (in, out) degree, counted the way `degrees` counts it."""
    i = conn.execute("SELECT count(DISTINCT l.src) FROM links l JOIN notes s ON s.path = l.src "
                     "WHERE l.target = ? AND l.src != ? AND s.type != 'journal'", (path, path)).fetchone()[0]
    o = conn.execute("SELECT count(DISTINCT l.target) FROM links l JOIN files f ON f.path = l.target "
                     "WHERE l.src = ? AND f.is_note = 1 AND l.target != l.src", (path,)).fetchone()[0]
    return i, o


# ---------------------------------------------------------------- hubs: the ways into the vault
#
# A hub is a note the vault uses to enter itself. Each kind of evidence below adds its weight to a
# note's score, and within a kind a note that opens onto more notes comes first (REACH_WEIGHT per
# doubling of its reach). Every declared entry point (all kinds but link degree) is listed before a
# note that is only much linked: link degree fills the list only when the vault declares too few.
# A journal (date-named) note, a template and a person are never hubs; a tag-like target (the value
# of a property that describes notes: `author:`, `genre:`, `topics:`) is never one for being linked.
# The weights are ordinal, not fitted to a vault: home > shown in home > pinned > authored = map of
# maps = category = structure > linked from home, and a folder note loses a level's worth per folder
# it sits below the top (a hierarchy node, one doubling of reach per level). Structure is read the
# way the vault is laid out: folders and their folder notes (by name, or a section's entry page),
# Dendron and Logseq hierarchies, published addresses (`permalink: sync` above `sync/faq`).

HOME_WEIGHT = 200       # the note the vault opens on: an index/home/readme/start-here note at the vault's
                        # root, the app's home page (Logseq :default-home, Obsidian's Homepage plugin),
                        # Dendron's root.md. Above everything: the brief lists it first.
IN_HOME_WEIGHT = 100    # embedded in a home note (`![[🗂️ hub#MOC]]`): shown as part of the home page,
                        # below the home note itself, above every other kind
FAVORITE_WEIGHT = 60    # pinned by the owner in the app: Logseq :favorites, Obsidian bookmarks/starred
AUTHORED_WEIGHT = 50    # a hub by the configured hub_types/hub_tags/hub_folders/hub_title_patterns
MIN_MAPS_UP = 2         # a note that this many authored maps name through a property is their map
CATEGORY_WEIGHT = 50    # the target of a category-like property (`categories: [[Books]]`, _categories)
STRUCTURE_WEIGHT = 50   # heads a top-level folder (a folder note) or hierarchy (Dendron `x.md` above
                        # `x.y.md`, a Logseq namespace `x.md` above `x___y.md`) ...
DEPTH_PENALTY = 15      # ... less this for each level further down: a folder note five folders deep
                        # enters a corner of the vault, not the vault
FROM_HOME_WEIGHT = 30   # linked from a home note: the home note's own table of contents
REACH_WEIGHT = 4        # per doubling of the notes it opens onto (the folder's or hierarchy's notes,
                        # the category's members, the notes it links to): the bigger door first
MIN_REACH = 2           # a folder note or hierarchy node over fewer notes than this is no way in
SECTION_MIN_SHARE = 0.5  # a folder with no folder note by name is entered by the note named for it
                        # (`Introduction to Bases` in `Bases/`) that links to at least this share of
                        # the folder's notes: its table of contents, as a folder note would be
HIER_DEPTH_PENALTY = REACH_WEIGHT  # a hierarchy level down costs what halving its notes would: every
                        # note sits at some depth of its hierarchy (Dendron's tree, a Logseq namespace), so
                        # a node over 24 notes a level down (`vim.plugins`) is a bigger door than a root
                        # over 6 (`emacs`); folders keep DEPTH_PENALTY
PERMALINK_PROPS = ("permalink",)  # a note's published address (Obsidian Publish, Jekyll): a path, so a
                        # note whose address others' sit under heads a hierarchy
# Link degree, the last resort:
OUT_LINK_WEIGHT = 2     # an entry point leads somewhere: each note it links to counts double ...
IN_LINK_WEIGHT = 1      # ... each note linking to it once (people, dates and tags gather those)
MIN_OUT_LINKS = 2       # a note that links to fewer notes than this is no way into anything

# Category-like properties. A property named as a classification is one when its link targets are
# shared; a property of another name is one when it classifies much of the vault into few classes.
# A property that describes (who wrote it, its genre, topics, place) never is: its targets are
# values, and being named by many notes through it does not make a note a way in.
CATEGORY_PROPS = frozenset({"categories", "category", "type", "types", "kind", "class", "collection",
                            "collections"})
DESCRIPTIVE_PROPS = frozenset({
    "author", "authors", "people", "person", "persons", "with", "attendees", "participants", "speaker",
    "speakers", "host", "hosts", "guests", "cast", "director", "directors", "creator", "creators",
    "artist", "artists", "maker", "publisher", "genre", "genres", "topic", "topics", "tags", "tag",
    "keywords", "loc", "location", "locations", "place", "places", "city", "country", "org", "orgs",
    "organization", "company", "companies", "source", "sources", "related", "links", "see-also"})
CATEGORY_MIN_SHARE = 0.2      # another property: carried by at least this share of the vault's notes ...
CATEGORY_MIN_PER_TARGET = 3   # ... with at least this many notes per target on average (few classes)
NAMED_KINDS = ("category", "map of maps", "folder note")  # entry kinds an empty note never has: those a
                              # note has by being named by other notes, or by a name like a folder's
CATEGORY_FOLDER_MIN = 3       # a folder holding this many category notes, at least ...
CATEGORY_FOLDER_SHARE = 0.5   # ... this share of its notes, is the vault's categories folder
CATEGORY_FOLDER_NAMES = frozenset({"categories", "category"})  # a folder named for the vault's categories
                              # (kepano's `Categories/`, a wiki's Category: namespace kept as a folder): each
                              # note right in it is a category, its members the notes linking to it in any
                              # way (a closing `Categories: [[Categories/X|X]]` line as much as a property),
                              # and an empty one too (the app shows a page's backlinks: its members are the page)
CATEGORY_MIN_MEMBERS = 2      # a classification property is the vault's category system when one of its
                              # targets is shared by this many notes; then every note it names is a
                              # category, however few its members (one the owner set up and has filed
                              # one note in so far is a way in all the same)

# Names. Compared after lowercasing and reading `-`, `_` and other marks as spaces ("_README" is
# "readme", "start-here" is "start here").
HOME_NAMES = frozenset({"index", "indexes", "home", "readme", "start here", "start", "welcome",
                        "contents", "table of contents", "toc", "overview", "dashboard", "homepage"})
FOLDER_NOTE_NAMES = frozenset({"index", "readme", "home"})  # a folder's note inside it (GitHub, Hugo, Obsidian)
PERSON_WORDS = frozenset({"person", "people", "persons", "contact", "contacts", "author", "authors"})
TEMPLATE_FOLDERS = frozenset({"templates", "template"})
DENDRON_VALUE_ROOTS = ("tags", "user")  # Dendron's `#tag` notes (tags.x) and `@user` notes (user.x)
TEMPLATE_MIN_PLACEHOLDERS = 3  # a note with this many `{{…}}`/`<% … %>` placeholders is a template

# a date in a note's file name (a path's last segment): 2024-01-02, 2024_01_02 Tue, 2024.01.02,
# 20240102, 2024-W01, 2024-01
_JOURNAL_NAME_RE = re.compile(r"(?<!\d)\d{4}[-_.]\d{1,2}[-_.]\d{1,2}(?!\d)[^/]*$"
                              r"|(?<![^/])(?:\d{8}|\d{4}-W\d{1,2}|\d{4}-\d{2})\.md$")
_PLACEHOLDER_RE = re.compile(r"\{\{[^{}\n]{1,200}\}\}|<%[^%\n]{0,200}%>")


_NOT_WORD_RE = re.compile(r"[\W_]+")
# a number that orders a name (Johnny Decimal and PARA: `00 - Start here`, `01.02 Plugins`, `3. Areas`):
# the name is what follows it
_ORDER_PREFIX_RE = re.compile(r"(?:\d+ )+(?=\D)")


def _norm(name: str) -> str:
    low = name.lower()
    return low if low.isalnum() else " ".join(_NOT_WORD_RE.sub(" ", low).split())


def _name(name: str) -> str:
    """A note's or folder's name as it reads: lowercased, marks and emoji as spaces (`🗂️ hub` is
    "hub", `_README` is "readme"), less a number that only orders it (`00 - Start here` is
    "start here")."""
    n = _norm(name)
    return _ORDER_PREFIX_RE.sub("", n, 1) if n[:1].isdigit() else n


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1][:-3]


def is_date_named(path: str) -> bool:
    """A daily/weekly/monthly note: its file name holds a date (`2024-01-02`, `2024_01_02 Tue`,
    Dendron's `daily.journal.2024.01.02`)."""
    return _JOURNAL_NAME_RE.search(path, path.rfind("/") + 1) is not None


PUBLISH_OPTIONS = "site-options.json"  # Obsidian Publish's site options as a vault keeps them beside its
                                       # notes: `indexFile` names the page the site opens on


def app_settings(vault: str | None, dialect: str) -> dict:
    """What the vault's app says about its entry points and folders, read from its own settings:
    {"home": [names or paths], "favorites": [...], "journal_folders": [...], "template_folders": [...],
    "vault_roots": [...]} (a Dendron workspace's vault folders, each a vault's root).
    vault/appsettings.py reads them (entry_pages, daily_notes, templates_folder), and Obsidian
    Publish's site options (PUBLISH_OPTIONS) name the site's home page: a few small files, read when
    hubs are ranked (after the index changes)."""
    from ..vault import appsettings

    out: dict[str, list[str]] = {"home": [], "favorites": [], "journal_folders": [], "template_folders": [],
                                 "vault_roots": []}
    if not vault:
        return out
    if dialect == "dendron":
        out["vault_roots"] = appsettings.dendron_vaults(vault, notes=False)
    out.update(appsettings.entry_pages(vault, dialect))
    publish = appsettings.read_json(os.path.join(vault, PUBLISH_OPTIONS))
    if isinstance(publish, dict) and isinstance(publish.get("indexFile"), str) and publish["indexFile"].strip():
        out["home"] = [*out["home"], publish["indexFile"].strip()]
    daily = appsettings.daily_notes(vault, dialect)
    if daily is not None and daily.home:  # a daily-notes folder at the root names no folder
        out["journal_folders"].append(daily.home)
    templates = appsettings.templates_folder(vault, dialect)
    if templates:
        out["template_folders"].append(templates)
    return out


def _categories(prop_links: dict[str, dict[str, set[str]]], n_notes: int) -> dict[str, int]:
    """Category notes -> how many notes name them, from {prop: {target: {src, ...}}} (property links
    from notes that are neither journals nor templates). A property named as a classification
    (CATEGORY_PROPS) is the vault's category system when one of its targets is shared
    (CATEGORY_MIN_MEMBERS); a property of another name, when it is no describing property
    (DESCRIPTIVE_PROPS) and classifies much of the vault into few classes (CATEGORY_MIN_SHARE of the
    notes carry it, CATEGORY_MIN_PER_TARGET notes per target). Every target of a category system is
    a category, however few notes it has yet."""
    out: dict[str, int] = {}
    for prop, targets in prop_links.items():
        name = prop.lower()
        if name in DESCRIPTIVE_PROPS:
            continue
        if name in CATEGORY_PROPS:
            if max(map(len, targets.values())) < CATEGORY_MIN_MEMBERS:
                continue
        else:
            carriers = set().union(*targets.values())
            if len(carriers) < CATEGORY_MIN_SHARE * n_notes or \
                    len(carriers) < CATEGORY_MIN_PER_TARGET * len(targets):
                continue
        for t, srcs in targets.items():
            out[t] = max(out.get(t, 0), len(srcs))
    return out


def _category_folder_notes(cats: dict[str, int], prop_links: dict[str, dict[str, set[str]]],
                           direct: dict[str, int]) -> dict[str, int]:
    """The other notes of the vault's categories folder -> how many notes name them through any property.
    A folder where the category notes live (CATEGORY_FOLDER_MIN of them, CATEGORY_FOLDER_SHARE of its
    notes: kepano's `Categories/`) is where its owner keeps categories: a note there that notes name
    through a property that only describes (`topics: [[Writing]]`) is a category all the same."""
    per_folder: dict[str, int] = {}
    for t in cats:
        f = t[:t.rfind("/") + 1]
        per_folder[f] = per_folder.get(f, 0) + 1
    folders = {f for f, n in per_folder.items() if f and n >= CATEGORY_FOLDER_MIN
               and n >= CATEGORY_FOLDER_SHARE * direct.get(f, 0)}
    out: dict[str, set[str]] = {}
    if folders:
        for targets in prop_links.values():
            for t, srcs in targets.items():
                if t not in cats and t[:t.rfind("/") + 1] in folders:
                    out.setdefault(t, set()).update(srcs)
    return {t: len(srcs) for t, srcs in out.items()}


def _named_category_folder(conn: sqlite3.Connection, notes: dict[str, tuple]) -> dict[str, int]:
    """The notes right in a folder named for categories (CATEGORY_FOLDER_NAMES) -> how many other
    notes (no journal or template: `notes`) link to each, by any kind of link; those no note links
    to are left out."""
    folders = {p[:p.rfind("/") + 1] for p in notes if "/" in p}
    named = [f for f in folders if _name(f[:-1].rsplit("/", 1)[-1]) in CATEGORY_FOLDER_NAMES]
    if not named:
        return {}
    members: dict[str, set[str]] = {}
    for f in named:
        for src, target in conn.execute(
                "SELECT DISTINCT src, target FROM links WHERE target IS NOT NULL AND src != target "
                "AND substr(target, 1, ?) = ? AND instr(substr(target, ?), '/') = 0",
                (len(f), f, len(f) + 1)):
            if src in notes and target in notes:
                members.setdefault(target, set()).add(src)
    return {t: len(srcs) for t, srcs in members.items()}


def _in_templates(low: str, template_folders: tuple[str, ...], dialect: str) -> bool:
    """Whether a (lowercased) path is in a templates folder: one named so, the app's own, or Dendron's
    `templates.*` hierarchy."""
    parts = low.split("/")
    return (bool(template_folders) and low.startswith(template_folders)) \
        or any(p.strip("._") in TEMPLATE_FOLDERS for p in parts[:-1]) \
        or (dialect == "dendron" and parts[-1].split(".", 1)[0] in TEMPLATE_FOLDERS)


def _vault_dialect(conn: sqlite3.Connection) -> tuple[str | None, str]:
    from ..core.config import detect_dialect

    row = conn.execute("SELECT value FROM meta WHERE key = 'vault'").fetchone()
    vault = row[0] if row and row[0] and os.path.isdir(row[0]) else None
    return vault, detect_dialect(vault) if vault else "plain"


def entry_points(conn: sqlite3.Connection, include_private: bool = False,
                 deg: dict[str, tuple[int, int]] | None = None) -> list[dict]:
    """The declared entry points, best first: [{"path", "score", "kind", "reach"}]; link degree not
    included (hubs() falls back on it). Within `memo_degrees()` kept for the index state it was read
    from."""
    key = None
    if _degrees_memo is not None:
        key = ("entry", include_private) + tuple(r[0] for r in conn.execute(
            "SELECT value FROM meta WHERE key IN ('generation', 'changed_at') ORDER BY key"))
        if key in _degrees_memo:
            return _degrees_memo[key]
    result = _entry_points(conn, include_private, degrees(conn) if deg is None else deg)
    if key is not None:
        _degrees_memo[key] = result
    return result


def _entry_points(conn: sqlite3.Connection, include_private: bool, deg: dict[str, tuple[int, int]]) -> list[dict]:
    vault, dialect = _vault_dialect(conn)
    app = app_settings(vault, dialect)
    journal_folders = tuple(f.strip("/").lower() + "/" for f in app["journal_folders"])
    template_folders = tuple(f.strip("/").lower() + "/" for f in app["template_folders"])
    hier_sep = {"dendron": ".", "logseq": "___"}.get(dialect)

    date_named = _JOURNAL_NAME_RE.search
    notes: dict[str, tuple] = {}   # path -> (hub, title): every note but journals and templates,
                                   # and the notes that make up a folder's, hierarchy's or category's reach
    empty: set[str] = set()        # notes with nothing in them (see `add`)
    for path, typ, hub, private, title, blank in conn.execute(
            "SELECT path, type, hub, private, display_title, body_chars = 0 AND coalesce(props, '{}') IN ('', '{}') "
            "FROM notes WHERE skipped = 0"):
        if private and not include_private or typ == "journal":
            continue
        if blank:
            empty.add(path)
        name_at = path.rfind("/") + 1
        if date_named(path, name_at):  # a journal by its name
            continue
        low = path.lower()
        if journal_folders and low.startswith(journal_folders) or \
                ("templat" in low or template_folders) and _in_templates(low, template_folders, dialect):
            continue
        notes[path] = (hub, title)

    folder_size: dict[str, int] = {}   # folder -> notes under it (at any depth)
    hier_size: dict[str, int] = {}     # folder + hierarchy prefix -> notes below it
    direct: dict[str, int] = {}        # folder -> notes right in it
    for path in notes:
        f = path[:path.rfind("/") + 1]
        direct[f] = direct.get(f, 0) + 1
        if hier_sep:
            segs = path[len(f):-3].split(hier_sep)
            for i in range(1, len(segs)):
                h = f + hier_sep.join(segs[:i])
                hier_size[h] = hier_size.get(h, 0) + 1
    for f, n in direct.items():  # each folder's notes count for every folder above it
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            a = "/".join(parts[:i])
            folder_size[a] = folder_size.get(a, 0) + n

    evidence: dict[str, dict[str, float]] = {}
    reach: dict[str, int] = {}

    def add(path: str, kind: str, weight: float, r: int = 0, blank_ok: bool = False) -> None:
        # an empty note is no way in however many notes name it (NAMED_KINDS): the file a click on a
        # link to no note leaves behind (Obsidian creates it empty, `Clippings.md` beside `Clippings/`),
        # a name kept for later
        if path in notes and not (kind in NAMED_KINDS and path in empty and not blank_ok):
            e = evidence.setdefault(path, {})
            e[kind] = max(e.get(kind, weight), weight)
            reach[path] = max(reach.get(path, 0), r)

    # home notes: the vault's root index/home/readme, the app's home page, Dendron's root
    by_name: dict[str, str] = {}  # the names the app's settings use: page names, then titles
    named = list(notes.items()) if app["home"] or app["favorites"] else []
    for path, _ in named:  # a setting names a note as the app does, by its file's name first
        by_name.setdefault(_norm(_stem(path).replace("___", "/")), path)
    for path, (hub, title) in named:
        by_name.setdefault(_norm(title or _stem(path)), path)
    # a Dendron workspace keeps each vault in a folder (often a repository of its own): its README is
    # that vault's front page, and its root note its hierarchy's top; a note named Index there is a
    # hierarchy like any other
    roots = set(app["vault_roots"]) - {""}
    # A README is the repository's page for a code host's visitors: the vault's home only when it leads
    # into the notes (kepano's template ships one that links only to websites); Home, Index, Start here
    # are the owner's own by their names
    def home_named(p: str) -> bool:
        n = _name(_stem(p))
        return n in HOME_NAMES and (n != "readme" or deg.get(p, (0, 0))[1] > 0)

    homes = [p for p in notes if "/" not in p and home_named(p)
             or dialect == "dendron" and (_stem(p) == "root" or p[:max(0, p.rfind("/"))] in roots
                                          and _name(_stem(p)) == "readme")]
    homes += [by_name[_norm(h)] for h in app["home"] if _norm(h) in by_name]
    homes += [h if h.endswith(".md") else h + ".md" for h in app["home"] if "/" in h]
    if not homes and not app["favorites"] and dialect not in ("logseq", "dendron"):
        # a vault kept in folders (a site's `pages/index.md`) that names no way in: its one home note
        # one folder down (Logseq's and Dendron's folders are storage)
        below = [p for p in notes if p.count("/") == 1 and home_named(p)]
        homes += below if len(below) == 1 else []
    for p in homes:
        add(p, "home", HOME_WEIGHT, deg.get(p, (0, 0))[1])
    # a note the home note embeds (`![[🗂️ hub#MOC]]`, `![[README#What is]]`) is shown as part of it:
    # the home's own contents, and what it lists is listed from the home
    shown_in_home = [t for (t,) in rows_in(
        conn, "SELECT DISTINCT target FROM links WHERE kind = 'embed' AND src IN ({in}) AND target IS NOT NULL "
              "AND target != src", [p for p in dict.fromkeys(homes) if p in notes]) if t in notes and t not in homes]
    for p in shown_in_home:
        add(p, "in home", IN_HOME_WEIGHT, deg.get(p, (0, 0))[1])
    homes += shown_in_home
    for f in app["favorites"]:
        p = f if f in notes else by_name.get(_norm(f))
        if p:
            add(p, "favorite", FAVORITE_WEIGHT, deg.get(p, (0, 0))[1])
    headed: set[str] = set()  # folders with a folder note by name
    names: dict[str, str] = {}  # note -> its name as it reads (_name); folder -> the same
    fnames: dict[str, str] = {}
    for path, (hub, _) in notes.items():
        if hub:
            add(path, "authored", AUTHORED_WEIGHT, deg.get(path, (0, 0))[1])
        # folder notes: named like the folder or README/index inside it, or named like a folder beside it
        folder, _, name = path.rpartition("/")
        stem = name[:-3]
        heads = None
        own = names[path] = _name(stem)
        fname = fnames.get(folder)
        if fname is None:
            fname = fnames[folder] = _name(folder[folder.rfind("/") + 1:])
        if folder and (own in FOLDER_NOTE_NAMES or own and own == fname):
            heads = folder  # `_README.md`, `Git/Git.md`, `01 - Community/🗂️ 01 - Community.md`
        elif path[:-3] in folder_size:
            heads = path[:-3]
        # Logseq's pages/ and journals/ and a Dendron vault's folder are the app's storage: their
        # structure is the hierarchy in the file names
        if heads is not None and dialect not in ("logseq", "dendron"):
            headed.add(heads)
            r = folder_size.get(heads, 0) - (path.startswith(heads + "/"))
            if r >= MIN_REACH:
                add(path, "folder note", STRUCTURE_WEIGHT - DEPTH_PENALTY * heads.count("/"), r)
        if hier_sep and path[:-3] in hier_size:  # a hierarchy node: notes named below it
            if dialect == "dendron" and stem.split(".", 1)[0] in DENDRON_VALUE_ROOTS:
                continue
            r = hier_size[path[:-3]]
            if r >= MIN_REACH:
                add(path, "hierarchy root", STRUCTURE_WEIGHT - HIER_DEPTH_PENALTY * stem.count(hier_sep), r)
        elif hier_sep and hier_sep in stem:
            # a level's front page, named as a vault's is (`api.index`, `languages.overview`: the
            # `index.md` of a folder, one level down a dot hierarchy): it opens onto the level's notes
            level, _, last = path[:-3].rpartition(hier_sep)
            if _name(last) in HOME_NAMES and hier_size.get(level, 0) - 1 >= MIN_REACH \
                    and not (dialect == "dendron" and stem.split(".", 1)[0] in DENDRON_VALUE_ROOTS):
                add(path, "hierarchy root", STRUCTURE_WEIGHT - HIER_DEPTH_PENALTY * level.count(hier_sep),
                    hier_size[level] - 1)

    if dialect not in ("logseq", "dendron"):
        for path, folder, r in _section_entries(conn, names, fnames, folder_size, headed):
            add(path, "folder note", STRUCTURE_WEIGHT - DEPTH_PENALTY * folder.count("/"), r)
    for path, perm, r in _permalink_roots(conn, notes):
        add(path, "hierarchy root", STRUCTURE_WEIGHT - HIER_DEPTH_PENALTY * perm.count("/"), r)

    # categories: targets of category-like properties, named from notes that are no journal or template
    prop_links: dict[str, dict[str, set[str]]] = {}
    for prop, src, target in conn.execute(
            "SELECT prop, src, target FROM links WHERE kind = 'property' AND prop IS NOT NULL "
            "AND target IS NOT NULL AND src != target"):
        if src in notes:
            prop_links.setdefault(prop, {}).setdefault(target, set()).add(src)
    cats = _categories(prop_links, len(notes))
    for t, members in _category_folder_notes(cats, prop_links, direct).items():
        cats.setdefault(t, members)
    for t, members in cats.items():
        add(t, "category", CATEGORY_WEIGHT, members)
    for t, members in _named_category_folder(conn, notes).items():
        add(t, "category", CATEGORY_WEIGHT, max(members, cats.get(t, 0)), blank_ok=True)
    # the map the owner's maps point up to through a property (`topics: [[AI]]`, `up: [[Home]]` on
    # maps tagged moc): a map of maps, whatever the property, with the notes naming it as its reach
    maps_up: dict[str, set[str]] = {}
    named_by: dict[str, set[str]] = {}
    for targets in prop_links.values():
        for t, srcs in targets.items():
            named_by.setdefault(t, set()).update(srcs)
            maps_up.setdefault(t, set()).update(p for p in srcs if notes[p][0])
    for t, maps in maps_up.items():
        if len(maps - {t}) >= MIN_MAPS_UP:
            add(t, "map of maps", AUTHORED_WEIGHT, len(named_by[t]))

    # what the home notes link to, in the order they list it
    order: dict[str, int] = {}
    home_set = [p for p in dict.fromkeys(homes) if p in notes]
    if home_set:
        for src, target, _line in rows_in(
                conn, "SELECT src, target, min(line) AS first FROM links WHERE src IN ({in}) AND target IS "
                      "NOT NULL AND target != src GROUP BY src, target ORDER BY first", home_set):
            if target not in home_set:
                add(target, "linked from home", FROM_HOME_WEIGHT, deg.get(target, (0, 0))[1])
                order.setdefault(target, len(order))

    ranked = []
    for path, e in evidence.items():
        r = reach.get(path, 0)
        score = sum(e.values()) + REACH_WEIGHT * math.log2(1 + r)
        kind = max(e, key=lambda k: e[k])
        ranked.append({"path": path, "score": round(score, 1), "kind": kind, "reach": r,
                       "_order": (order.get(path, len(order)), -deg.get(path, (0, 0))[0])})
    ranked.sort(key=lambda x: (-x["score"], x["_order"], x["path"]))  # then the home's order, then in-degree
    for x in ranked:
        del x["_order"]
    return ranked


def _section_entries(conn: sqlite3.Connection, names: dict[str, str], fnames: dict[str, str],
                     folder_size: dict[str, int], headed: set[str]) -> list[tuple[str, str, int]]:
    """The entry page of each folder that has no folder note by name: the note in it named for the
    folder (`Bases/Introduction to Bases.md`, `Plugins/Core plugins.md`, `Teams/Obsidian for
    teams.md`) that links to at least SECTION_MIN_SHARE of the folder's other notes, the one linking
    to most when several do. `names` holds every ranked note's name as it reads (_name), `fnames`
    each folder's. -> [(path, folder, notes under the folder)]."""
    cands: dict[str, str] = {}  # path -> the folder it is named for
    for path, own in names.items():
        folder = path[:path.rfind("/")] if "/" in path else ""
        if not folder or folder in headed or folder_size.get(folder, 0) <= MIN_REACH:
            continue
        fname = fnames[folder]
        if fname and f" {fname} " in f" {own} ":
            cands[path] = folder
    if not cands:
        return []
    reached: dict[str, set[str]] = {}
    for src, target in rows_in(conn, "SELECT DISTINCT src, target FROM links WHERE src IN ({in}) "
                                     "AND target IS NOT NULL AND target != src", list(cands)):
        if target.startswith(cands[src] + "/") and target in names:
            reached.setdefault(src, set()).add(target)
    best: dict[str, tuple[int, str]] = {}
    for path, folder in cands.items():
        n = len(reached.get(path, ()))
        others = folder_size[folder] - 1
        if n >= MIN_REACH and n >= SECTION_MIN_SHARE * others and (n, path) > best.get(folder, (0, "")):
            best[folder] = (n, path)
    return [(path, folder, folder_size[folder] - 1) for folder, (_, path) in sorted(best.items())]


def _permalink_roots(conn: sqlite3.Connection, notes: dict[str, tuple]) -> list[tuple[str, str, int]]:
    """The notes whose published address heads others' (PERMALINK_PROPS): `permalink: sync` above
    `permalink: sync/faq`, as a Dendron `x.md` heads `x.y.md`. -> [(path, its permalink, notes below)]."""
    perm: dict[str, str] = {}
    for prop in PERMALINK_PROPS:
        for path, value in conn.execute("SELECT path, json_extract(props, ?) FROM notes WHERE skipped = 0 "
                                        "AND instr(props, ?) > 0", (f'$."{prop}"', f'"{prop}"')):
            if path in notes and isinstance(value, str) and value.strip("/ "):
                perm.setdefault(path, value.strip("/ ").lower())
    below: dict[str, int] = {}
    for value in perm.values():
        parts = value.split("/")
        for i in range(1, len(parts)):
            a = "/".join(parts[:i])
            below[a] = below.get(a, 0) + 1
    return [(path, value, below[value]) for path, value in perm.items() if below.get(value, 0) >= MIN_REACH]


def _never_hub(conn: sqlite3.Connection, path: str) -> bool:
    """A person or a template by what the note says of itself (its type, tags, categories, a
    Logseq `template::` property, placeholders in its text)."""
    row = conn.execute("SELECT n.id, n.type, n.tags, n.props FROM notes n WHERE n.path = ?", (path,)).fetchone()
    if row is None:
        return True
    nid, typ, tags, props = row
    if (typ or "").lower() in PERSON_WORDS:
        return True
    for t in json.loads(tags or "[]"):
        if str(t).lower().rsplit("/", 1)[-1] in PERSON_WORDS:
            return True
    try:
        props = json.loads(props or "{}")
    except ValueError:
        props = {}
    if isinstance(props, dict) and any(str(k).lower() == "template" for k in props):
        return True
    for prop, target, linkpath in conn.execute(
            "SELECT prop, target, linkpath FROM links WHERE src = ? AND kind = 'property'", (path,)):
        if (prop or "").lower() in CATEGORY_PROPS and _norm((target and _stem(target)) or linkpath) in PERSON_WORDS:
            return True
    body = conn.execute("SELECT body FROM fts WHERE rowid = ?", (nid,)).fetchone()
    if body and len(set(_PLACEHOLDER_RE.findall((body[0] or "")[:20_000]))) >= TEMPLATE_MIN_PLACEHOLDERS:
        return True
    return False


def _tag_like(conn: sqlite3.Connection, path: str) -> bool:
    """Named mostly as the value of a property that is not category-like (`author:`, `genre:`): a
    value that describes notes, not a way into them."""
    body_in = prop_in = 0
    for kind, prop, n in conn.execute("SELECT kind, prop, count(DISTINCT src) FROM links WHERE target = ? "
                                      "AND src != ? GROUP BY kind, prop", (path, path)):
        if kind == "property" and (prop or "").lower() not in CATEGORY_PROPS:
            prop_in += n
        else:
            body_in += n
    return prop_in > 0 and prop_in >= body_in


def hubs(conn: sqlite3.Connection, limit: int, include_private: bool = False,
         shown: set[str] | frozenset[str] = frozenset()) -> list[dict]:
    """The vault's entry points, best first (entry_points: home notes, pinned notes, authored hubs,
    categories, folder notes and hierarchy roots, what the home notes list); then, only while fewer
    than `limit`, notes by link degree (OUT_LINK_WEIGHT, IN_LINK_WEIGHT). Journals, templates and
    people never; a tag-like target not by its degree; nor a note in `shown` (listed elsewhere, as
    the brief lists conventions). Each row says its `entry` kind."""
    deg = degrees(conn)
    chosen: list[tuple[str, str]] = []
    for e in entry_points(conn, include_private, deg):
        if len(chosen) >= limit:
            break
        if e["path"] in shown:
            continue
        if e["kind"] == "home" or not _never_hub(conn, e["path"]):
            chosen.append((e["path"], e["kind"]))
    if len(chosen) < limit:
        vault, dialect = _vault_dialect(conn)
        app = app_settings(vault, dialect)
        jf = tuple(f.strip("/").lower() + "/" for f in app["journal_folders"])
        tf = tuple(f.strip("/").lower() + "/" for f in app["template_folders"])
        taken = {p for p, _ in chosen} | set(shown)
        cand = []
        for path, typ, private in conn.execute("SELECT path, type, private FROM notes WHERE skipped = 0"):
            i, o = deg.get(path, (0, 0))
            if o >= MIN_OUT_LINKS and path not in taken and (include_private or not private) \
                    and typ != "journal" and not is_date_named(path) and not path.lower().startswith(jf):
                cand.append((-(OUT_LINK_WEIGHT * o + IN_LINK_WEIGHT * i), path))
        cand.sort()
        for _, path in cand:
            if len(chosen) >= limit:
                break
            if not _never_hub(conn, path) and not _tag_like(conn, path) and \
                    not _in_templates(path.lower(), tf, dialect):
                chosen.append((path, "links"))
    full: dict[str, dict] = {}
    cols = ("path", "title", "display_title", "type", "summary", "hub", "private", "project")
    for r in rows_in(conn, f"SELECT {', '.join(cols)} FROM notes WHERE path IN ({{in}})", [p for p, _ in chosen]):
        full[r[0]] = dict(zip(cols, r))
    out = []
    for p, kind in chosen:
        r = full[p]
        i, o = deg.get(p, (0, 0))
        r["in_degree"], r["out_degree"], r["degree"] = i, o, i + o
        r["entry"] = kind
        out.append(r)
    return out


def conventions(conn: sqlite3.Connection, include_private: bool = False, limit: int = -1) -> list[dict]:
    rows = _rows(conn, "SELECT path, title, display_title, summary, status, tags, private FROM notes "
                       "WHERE type = 'convention'" + ("" if include_private else " AND private = 0") +
                       " ORDER BY display_title COLLATE NOCASE LIMIT ?", (limit,))
    for r in rows:
        r["tags"] = json.loads(r["tags"] or "[]")
    return [r for r in rows if include_private or not r["private"]]


def orphans(conn: sqlite3.Connection) -> list[dict]:
    return _rows(conn, """
        SELECT n.path, n.display_title, n.type FROM notes n
        WHERE n.type != 'journal' AND n.private = 0
          AND NOT EXISTS (SELECT 1 FROM links l JOIN files f ON f.path = l.target
                          WHERE l.src = n.path AND f.is_note = 1 AND l.target != n.path)
          AND NOT EXISTS (SELECT 1 FROM links l WHERE l.target = n.path AND l.src != n.path)
        ORDER BY n.path""")


def dangling(conn: sqlite3.Connection) -> list[dict]:
    """Unresolved link targets, grouped as graph.json groups them (Unicode case-insensitive), most
    linked first; links written in private notes are left out."""
    groups: dict[str, dict] = {}
    for linkpath, src in conn.execute(
            "SELECT linkpath, src FROM links WHERE target IS NULL AND src NOT IN "
            "(SELECT path FROM notes WHERE private = 1) ORDER BY linkpath"):
        g = groups.setdefault(unresolved_id(linkpath), {"target": linkpath, "count": 0, "from_notes": set()})
        g["count"] += 1
        g["from_notes"].add(src)
    rows = [{"target": g["target"], "count": g["count"], "sources": len(g["from_notes"]),
             "from_notes": sorted(g["from_notes"])} for g in groups.values()]
    rows.sort(key=lambda r: (-r["count"], r["target"].lower()))
    return rows


def private_paths(conn: sqlite3.Connection) -> set[str]:
    return {p for (p,) in conn.execute("SELECT path FROM notes WHERE private = 1")}


def ambiguous(conn: sqlite3.Connection) -> list[dict]:
    """Links whose name matches several files. One that resolves to a private note, or that is
    ambiguous only because a private note shares the name, is not listed: either would name it."""
    rows = _rows(conn, "SELECT src, linkpath, target, line FROM links WHERE ambiguous = 1 "
                       "ORDER BY src, line")
    private = private_paths(conn)
    if not private or not rows:
        return rows
    still = _ambiguous_without(conn, private)
    return [r for r in rows if r["target"] not in private and still(r["target"])]


def _ambiguous_without(conn: sqlite3.Connection, private: set[str]):
    """For the target of a link marked ambiguous: whether it still is when private notes are not
    counted (a name shared by one public file and private notes only is not)."""
    from ..vault.links import file_name_lc

    hidden_names = {file_name_lc(p) for p in private}
    public_count: dict[str, int] = {}
    for (p,) in conn.execute("SELECT path FROM files"):
        name = file_name_lc(p)
        if name in hidden_names and p not in private:
            public_count[name] = public_count.get(name, 0) + 1
    return lambda target: public_count.get(file_name_lc(target or ""), 2) >= 2


def warnings(conn: sqlite3.Connection) -> list[dict]:
    return _rows(conn, "SELECT path, kind, message FROM warnings ORDER BY path")


def find_note(conn: sqlite3.Connection, ref: str) -> str:
    """A note path from a path, a file name or a title, case-insensitively."""
    q = ref.strip().replace("\\", "/").lstrip("./")
    if not q:
        raise NoteNotFound("empty note name: give a path, a file name or a title")
    # SQLite's lower() folds ASCII only; notes named in Greek or German must match too, and a name
    # typed in another Unicode form (NFD "é" from macOS) is the same name.
    import unicodedata

    conn.create_function("ulower", 1, lambda v: unicodedata.normalize("NFC", v).lower() if isinstance(v, str)
                         else v, deterministic=True)
    qn = unicodedata.normalize("NFC", q)
    ql = qn.lower()
    for arg in (ql, ql + ".md"):
        hit = [r[0] for r in conn.execute("SELECT path FROM notes WHERE ulower(path) = ?", (arg,))]
        if len(hit) > 1:  # files whose names differ only in case: the one named as written
            hit = [p for p in hit if unicodedata.normalize("NFC", p) in (qn, qn + ".md")]
        if len(hit) == 1:
            return hit[0]
    name = ql[:-3] if ql.endswith(".md") else ql
    suffix = f"/{name}.md"
    for sql, args in (("SELECT path FROM notes WHERE ulower(title) = ?", (name,)),
                      # a private note is found only by its file name or path, never by what it holds
                      ("SELECT path FROM notes WHERE ulower(display_title) = ? AND private = 0", (name,)),
                      ("SELECT a.path FROM aliases a JOIN notes n ON n.path = a.path "
                       "WHERE a.alias_lc = ? AND n.private = 0", (name,)),
                      ("SELECT path FROM notes WHERE substr(ulower(path), -?) = ?", (len(suffix), suffix))):
        hit = sorted({r[0] for r in conn.execute(sql, args)})
        if len(hit) > 1:
            # a private note is found only when the name is its alone: among several it is neither
            # listed nor counted, so the answer is what it would be if the note did not exist
            hidden = private_paths(conn)
            hit = [p for p in hit if p not in hidden]
        if len(hit) == 1:
            return hit[0]
        if len(hit) > 1:
            raise NoteNotFound(f"`{ref}` is ambiguous: {', '.join(hit[:10])}"
                               f"{' …' if len(hit) > 10 else ''}: give the path")
    raise NoteNotFound(f"no note called `{ref}` in the vault: try `memory-plugin search {ref!r}`")


def explain(conn: sqlite3.Connection, path: str) -> dict:
    from .store import note_row

    n = note_row(conn, path)
    if n is None:
        raise NoteNotFound(f"no note at {path}")
    if n["private"]:  # the user named it; nothing of what it holds is shown
        return {"path": path, "private": True}
    out_links = _rows(conn, "SELECT kind, prop, linkpath, subpath, target, line, ambiguous FROM links "
                            "WHERE src = ? ORDER BY line", (path,))
    private = private_paths(conn)
    still = _ambiguous_without(conn, private) if private else None
    for r in out_links:
        if r["target"] in private:  # the link resolves; where to is not shown
            r.update(target=None, ambiguous=0, private=True)
        elif r["ambiguous"] and still and not still(r["target"]):
            r["ambiguous"] = 0  # only a private namesake made it so: saying so would hint at it
    in_links = _rows(conn, "SELECT l.src, l.kind, l.prop, l.subpath, l.line FROM links l JOIN notes s "
                           "ON s.path = l.src WHERE l.target = ? AND l.src != ? AND s.private = 0 "
                           "ORDER BY l.src, l.line", (path, path))
    for group in (out_links, in_links):
        for r in group:
            r["type"] = edge_type(r.pop("kind"), r.pop("prop"))
    deg = note_degree(conn, path)
    return {"path": path, "title": n["title"], "display_title": n["display_title"], "type": n["type"],
            "status": n["status"], "project": n["project"], "summary": n["summary"],
            "aliases": n["aliases"], "tags": n["tags"], "properties": n["props"],
            "created": n["created"], "updated": n["updated"], "hub": bool(n["hub"]),
            "private": bool(n["private"]), "warnings": n["warnings"],
            "in_degree": deg[0], "out_degree": deg[1],
            "outgoing": out_links, "incoming": in_links}


def backlinks(conn: sqlite3.Connection, path: str) -> list[dict]:
    rows = _rows(conn, "SELECT l.src, s.display_title AS title, l.kind, l.prop, l.line, l.subpath FROM links l "
                       "JOIN notes s ON s.path = l.src WHERE l.target = ? AND l.src != ? AND s.private = 0 "
                       "ORDER BY l.src, l.line", (path, path))
    for r in rows:
        r["type"] = edge_type(r.pop("kind"), r.pop("prop"))
    return rows


# ---------------------------------------------------------------- networkx

def build_graph(conn: sqlite3.Connection):
    """The directed multigraph of the vault (parallel and reciprocal edges kept)."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for (path, title, dtitle, typ, status, project, summary, hub, private, folder, aliases, tags) in conn.execute(
            "SELECT path, title, display_title, type, status, project, summary, hub, private, folder, aliases,"
            " tags FROM notes ORDER BY path"):  # one order, so communities do not depend on history
        if private:  # only the fact that links to it resolve (graph.json shows it as an opaque id)
            g.add_node(path, kind="note", private=True)
            continue
        g.add_node(path, kind="note", title=title, display_title=dtitle, type=typ, status=status,
                   project=project, summary=summary, hub=bool(hub), folder=folder,
                   aliases=json.loads(aliases or "[]"), tags=json.loads(tags or "[]"))
    attachments = {r[0] for r in conn.execute("SELECT path FROM files WHERE is_note = 0")}
    for src, kind, prop, linkpath, subpath, target, line in conn.execute(
            "SELECT src, kind, prop, linkpath, subpath, target, line FROM links ORDER BY src, line"):
        if target is None:
            node = unresolved_id(linkpath)
            if node not in g:
                g.add_node(node, kind="unresolved", name=linkpath)
        else:
            node = target
            if node not in g:
                g.add_node(node, kind="attachment" if node in attachments else "note", title=node)
        g.add_edge(src, node, type=edge_type(kind, prop), subpath=subpath or "", line=line)
    for path, tag in conn.execute("SELECT path, tag FROM tags ORDER BY path, tag"):
        tid = tag_id(tag)
        if tid not in g:
            g.add_node(tid, kind="tag", name=tag.lower())
        g.add_edge(path, tid, type="tagged")
    for tid in [n for n, d in g.nodes(data=True) if d.get("kind") == "tag"]:
        name = g.nodes[tid]["name"]
        while "/" in name:
            parent = name.rsplit("/", 1)[0]
            pid = tag_id(parent)
            if pid not in g:
                g.add_node(pid, kind="tag", name=parent)
            if not g.has_edge(f"tag:{name}", pid):
                g.add_edge(f"tag:{name}", pid, type="subtag_of")
            name = parent
    return g


def shortest_path(conn: sqlite3.Connection, a: str, b: str) -> list[dict]:
    """Shortest chain of links between two notes, following links in either direction."""
    import networkx as nx

    g = build_graph(conn)
    # A private note is never a step on the way: only the two notes the user named may be private
    # (and a private note has no links of its own in the index).
    u = nx.Graph()
    u.add_nodes_from((a, b))
    u.add_edges_from((x, y) for x, y in g.edges() if not g.nodes[x].get("private") and
                     (not g.nodes[y].get("private") or y in (a, b)))
    try:
        nodes = nx.shortest_path(u, a, b)
    except nx.NetworkXNoPath:
        return []
    steps = []
    for x, y in zip(nodes, nodes[1:]):
        forward = g.has_edge(x, y) and not g.nodes[x].get("private")
        s, t = (x, y) if forward else (y, x)
        d = next(iter(g.get_edge_data(s, t).values()))
        steps.append({"from": x, "to": y, "type": d["type"], "direction": "->" if forward else "<-"})
    return steps
