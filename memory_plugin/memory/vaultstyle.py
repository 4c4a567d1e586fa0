"""Writing in the vault's own style: which folder a new memory goes to, how its properties are spelled
and laid out, whether it opens with an H1, how its file is named, and how its `project` is written (a
wikilink to the project's note when the vault links, plain text otherwise). `of(cfg, conn)` reads it
from the app's settings (vault/appsettings.py) first, then from what the vault's notes do (a folder no
app has marked is read the same way when its notes show they were written for one); a vault with no
convention of its own gets the plugin's layout (`type_folders`, lowercase properties, an H1).

Project *detection* (which project the session is in) is project.py's job; this module only
decides how a given project name is written.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
from collections import Counter

from ..core import textutil
from ..core.config import Config
from ..core.paths import is_excluded

PLURAL = {"decision": "decisions", "pitfall": "pitfalls", "pattern": "patterns", "learning": "learnings",
          "convention": "conventions"}


def _top_folders(cfg: Config) -> list[str]:
    try:
        entries = sorted(os.scandir(cfg.vault), key=lambda e: e.name)
    except OSError:
        return []
    return [e.name for e in entries if e.is_dir() and not is_excluded(e.name, cfg.exclude)]


def type_folder(cfg: Config, type_: str) -> str:
    """The vault's existing folder for `type_` (matched without case, singular or plural), else the
    configured one. A folder the user configured explicitly always wins."""
    return _type_folder(cfg, type_)[0]


def _type_folder(cfg: Config, type_: str) -> tuple[str, bool]:
    """-> (folder, whether the vault or the user named it: False when it is only the default)."""
    configured = (cfg.type_folders.get(type_) or cfg.type_folders.get("note", "Inbox")).strip("/")
    folders = _top_folders(cfg)
    user_set = cfg.sources.get("type_folders", "default") != "default" and type_ in cfg.type_folders
    if configured in folders:
        return configured, True
    by_fold: dict[str, str] = {}
    for f in folders:
        by_fold.setdefault(textutil.fold(f), f)
    if "/" not in configured and textutil.fold(configured) in by_fold:
        return by_fold[textutil.fold(configured)], True
    if "/" in configured and os.path.isdir(os.path.join(cfg.vault, configured)):
        return configured, True
    if not user_set and type_ in PLURAL:
        for name in (PLURAL[type_], type_):
            if name in by_fold:
                return by_fold[name], True
    return configured, user_set


def same_name_on_disk(cfg: Config, folder: str, name: str) -> list[str]:
    """Files in `folder` whose name is `name`.md up to case and Unicode form (not yet indexed ones too)."""
    key = textutil.fold(name) + ".md"
    return [p for p, k in names_on_disk(cfg, folder) if k == key]


def names_on_disk(cfg: Config, folder: str) -> list[tuple[str, str]]:
    """(vault-relative path, folded name) of each entry of `folder`."""
    try:
        entries = os.listdir(os.path.join(cfg.vault, folder) if folder else cfg.vault)
    except OSError:
        return []
    return [(f"{folder}/{e}" if folder else e, textutil.fold(e)) for e in entries]


def _is_link(value) -> bool:
    vals = value if isinstance(value, list) else [value]
    return any(isinstance(v, str) and "[[" in v for v in vals)


def _category_notes(conn: sqlite3.Connection) -> set[str]:
    """The notes a category property links to (`categories: [[Movies]]`): the vault's categories,
    which are not notes of the shape a new memory takes (they carry no category themselves) and are
    left out of what `of` measures."""
    from ..index.project import property_targets

    return property_targets(conn, CATEGORY_KEYS)


PROJECT_KEYS = ("project", "projects")  # the properties naming a note's project(s), in any case


def _project_usage(conn: sqlite3.Connection) -> dict:
    """How the vault's notes write their project: per note that names one (its first `project` /
    `projects` property, any case, not empty), the key's spelling, whether the value is a list and
    whether it links; and how many of the vault's project links point to no note."""
    keys: Counter = Counter()
    lists = linked = plain = 0
    for (props,) in conn.execute("SELECT props FROM notes WHERE private = 0 AND props LIKE '%roj%'"):
        d = json.loads(props or "{}")
        k = next((k for k in d if str(k).lower() in PROJECT_KEYS and d[k] not in (None, "", [])), None)
        if k is None:
            continue
        keys[k] += 1
        lists += isinstance(d[k], list)
        if _is_link(d[k]):
            linked += 1
        else:
            plain += 1
    links = dangling = 0
    for target, n in conn.execute(
            f"SELECT target IS NULL, count(*) FROM links WHERE kind = 'property' AND lower(prop) IN "
            f"({','.join('?' * len(PROJECT_KEYS))}) GROUP BY target IS NULL", PROJECT_KEYS):
        links += n
        dangling += n if target else 0
    return {"key": keys.most_common(1)[0][0] if keys else "project", "notes": sum(keys.values()),
            "lists": lists, "linked": linked, "plain": plain, "dangling": dangling, "links": links}


def project_value(conn: sqlite3.Connection, project: str, style: "Style | None" = None,
                  usage: dict | None = None) -> str:
    """How to write `project`: `[[Hub]]` when the vault links its projects and a note for this project
    exists (its title or an alias is the name), else the name as given, or, where most of the vault's
    project links point to no note (`projects: ["[[aq-client]]"]` naming a repository), a link to it
    all the same. The vault links its projects when most notes that name a project link it; when no
    note names one, when the vault links in its properties anyway (`style`: most notes' properties hold
    a link, a category property, or Logseq, whose property values are page references)."""
    project = project.strip()
    if not project or project.startswith("[["):
        return project
    u = usage or _project_usage(conn)
    linked, plain = u["linked"], u["plain"]
    if not linked and not plain and style is not None:
        linked = int(style.links_properties or style.outliner or style.category_key is not None)
    if linked <= plain:
        return project
    key = textutil.fold(project)
    hubs: list[tuple[int, str]] = []
    targets = {t for (t,) in conn.execute(
        f"SELECT DISTINCT target FROM links WHERE kind = 'property' AND lower(prop) IN "
        f"({','.join('?' * len(PROJECT_KEYS))}) AND target IS NOT NULL", PROJECT_KEYS)}
    for path, title, dtitle, aliases, hub in conn.execute(
            "SELECT path, title, display_title, aliases, hub FROM notes WHERE private = 0 AND type != 'journal'"):
        names = [title, dtitle, *json.loads(aliases or "[]")]
        if any(textutil.fold(str(n)) == key for n in names):
            # a note the vault already links as a project beats an authored hub beats any other
            hubs.append((0 if path in targets else 1 if hub else 2, path))
    if not hubs:
        return f"[[{project}]]" if u["dangling"] * 2 > u["links"] and "[" not in project and "]" not in project \
            else project
    return f"[[{link_name(conn, sorted(hubs)[0][1])}]]"


def project_property(conn: sqlite3.Connection, project: str, style: "Style | None" = None) -> tuple[str, object]:
    """The property a new note names `project` in, as the vault's notes name theirs: the key most of
    them spell (`project`, `projects`, `Project`), a list where most of them hold one (`projects:
    ["[[aq-client]]"]`), the value as project_value writes it."""
    u = _project_usage(conn)
    value = project_value(conn, project, style, u)
    return u["key"], [value] if value and u["lists"] * 2 > u["notes"] else value


def link_name(conn: sqlite3.Connection, path: str) -> str:
    """How to write a wikilink to `path`: its name, or its path when several files share the name."""
    name = path.rsplit("/", 1)[-1][:-3]
    n = conn.execute("SELECT count(*) FROM files WHERE name_lc = ?", (textutil.fold(name) + ".md",)).fetchone()[0]
    if n > 1:
        return path[:-3]
    return name


# ---------------------------------------------------------------- the vault's way of filing a note

# Named shares of the measured notes (the public, non-journal notes outside the templates folder):
SCHEMA_SHARE = 0.5     # a property most notes carry is part of the vault's note shape: a new note carries it
CONSTANT_SHARE = 0.8   # ... and when one value is on this share of them (an `Author:`), it is written as is
IN_USE_SHARE = 0.05    # a spelling on fewer notes than this is not a convention of the vault
H1_SHARE = 0.5         # a new note opens with an H1 when at least this share of notes with text do
ONE_FOLDER_SHARE = 2 / 3  # where this share of the notes sit in one folder (twice as many as everywhere
                         # else together), new notes go there too (a slipbox's `permanent/`)
LINKED_SHARE = 1 / 3   # a folder no app marked whose notes link to its files this often (wikilinks, embeds,
                       # markdown links), or most of whose notes carry front matter, was written for a notes
                       # app or site: its folders say where a new note goes, as an app's would
OWN_VALUE_SHARE = 0.9  # a property whose values differ on this share of the notes carrying it is each note's own
SLUG_SHARE = 0.8       # where this share of many-word file names are kebab-case slugs, a new name is one
MIN_NOTES = 5          # fewer measured notes than this show no convention: the plugin's layout
STYLE_SAMPLE = 1000    # at most about this many notes are measured (an even sample of a larger vault)

# The properties a memory note has whose name the vault may spell its own way. The first tuple holds the
# spellings that say exactly this (Obsidian's documented `aliases` and `tags` before the deprecated
# singulars); the second, generic ones used only when the vault has none of the first (`Date`).
CONCEPTS = {
    "tags": (("tags",), ("tag",)),
    "aliases": (("aliases",), ("alias",)),
    "title": (("title",), ()),
    "created": (("created", "date created", "date-created", "datecreated", "created at", "created_at",
                 "createdat", "creation date", "created on", "created_on"), ("date",)),
    # the index reads a summary under any of these (vault/notes.py SUMMARY_KEYS): a vault that writes
    # `description:` (Obsidian Publish's) gets its summary there
    "summary": (("summary",), ("description", "desc", "excerpt", "abstract")),
    "modified": (("modified", "date modified", "date-modified", "datemodified", "last modified",
                  "last_modified", "lastmodified", "updated", "date updated", "updated at", "updated_at",
                  "modified at", "modified_at"), ()),
}
# What the index reads by these exact names (the lifecycle of a memory, vault/notes.py): never respelled.
OWN_KEYS = {"type", "summary", "status", "confidence", "last_validated", "project", "supersedes",
            "superseded_by", "related", "valid_to", "contradicts", "private"}
# Keys a new note never carries empty: its own text and identity are written by their concepts above,
# and an app's bookkeeping (Dendron's id and timestamps, publishing flags) is not the owner's to fill
WRITTEN_ELSEWHERE = {"title", "summary", "description", "desc", "id", "uid", "updated", "publish",
                     "permalink", "cssclasses", "cssclass"}
# Category-like properties: a vault that marks what a note is by linking a category note from one of them
CATEGORY_KEYS = ("categories", "category")
# The apps whose new note goes to the vault's root unless a setting says otherwise (Obsidian's
# `newFileLocation` defaults to "root"; Foam creates notes at the workspace root): a vault with a
# layout of its own (see `of`) but no folder that says where notes go gets a new note there. A plain
# folder whose notes link to each other is read the same way (most are Obsidian vaults shared without
# their settings folder).
ROOT_DEFAULT_APPS = ("obsidian", "foam", "plain")
_SLUG_RE = re.compile(r"[^\W_A-Z]+(?:-[^\W_A-Z]+)+")
_NUMBERED_RE = re.compile(r"^\s*\d+\s*[-._)]?\s*")


class Style:
    """How the vault files a new note (see `of`)."""

    def __init__(self) -> None:
        self.dialect = "plain"
        self.notes = 0                      # notes measured
        self.keys: dict[str, str] = {}      # concept -> the vault's spelling ("created" -> "Date Created")
        self.schema: set[str] = set()       # concepts most notes carry (written even when empty)
        self.constants: list[tuple[str, object]] = []  # (key, value) most notes carry as is
        self.empty: list[tuple[str, object]] = []  # (key, [] or "") most notes carry, each its own value
        self.named: list[str] = []            # keys most notes carry as a slug of their own file name (`permalink`)
        self.category_key: str | None = None  # `categories` when the vault marks kinds with linked notes
        self.h1 = True
        self.slug = False
        self.new_note_folder: str | None = None
        self.home_folder: str | None = None   # where the notes visibly live (one folder)
        self.own_layout = False               # the vault's folders say where a new note goes (see `of`)
        self.links_properties = False         # the vault's property values are mostly links

    @property
    def outliner(self) -> bool:
        """Logseq: page properties as `key:: value` lines, the text as `- ` bullets, no YAML."""
        return self.dialect == "logseq"

    def folder(self, cfg: Config, type_: str) -> str:
        """The type's folder when the vault or the user has one; else the folder the app's settings
        name for new notes; else, in a vault with a layout of its own, its general-notes folder by its
        name (`Notes/`, `00 - INBOX`: a name says it, where a share only suggests it), else the one
        folder where its notes visibly live, else its app's default, the root (ROOT_DEFAULT_APPS);
        else the plugin's layout."""
        folder, named = _type_folder(cfg, type_)
        if named:
            return folder
        if self.new_note_folder is not None:
            return self.new_note_folder
        inbox = _general_folder(cfg, self.own_layout)
        if inbox is not None:
            return inbox
        if self.own_layout and self.home_folder is not None:
            return self.home_folder
        if self.own_layout and self.dialect in ROOT_DEFAULT_APPS:
            return ""  # the app's own default for a new note: the vault's root
        return folder

    def key(self, concept: str) -> str:
        return self.keys.get(concept, concept)

    def named_values(self, title: str) -> list[tuple[str, str]]:
        """(key, the title as a slug) for each property the vault's notes carry as a slug of their
        own file name (Obsidian Publish's `permalink: status-bar` on `Status bar.md`)."""
        slug = _slug(title)
        return [(k, slug) for k in self.named] if slug else []

    def file_name(self, name: str, type_: str = "note") -> str:
        """`name` as the vault names files: a kebab-case slug where its names are slugs; in Dendron a
        hierarchy name under the kind's domain (`decisions.use-sqlite`)."""
        if not self.slug and self.dialect != "dendron":
            return name
        slug = _slug(name)
        if self.dialect == "dendron":
            return f"{PLURAL.get(type_, type_)}.{slug or 'note'}"
        return slug or name


def _slug(name: str) -> str:
    return re.sub(r"[^\w]+", "-", name.lower()).strip("-_")


def _named_by_file(value, stem_words: set[str]) -> bool:
    """Is `value` a slug made of the file name's words: lower case, no spaces, a letter, its last
    path part's words all the name's (`status-bar` for `Status bar`, `advanced-syntax` for `Advanced
    formatting syntax`; not `sync/faq` for `Frequently asked questions`, nor a numeric `id`)?"""
    if not isinstance(value, str) or not value.strip() or value != value.lower() or " " in value.strip() \
            or not any(ch.isalpha() for ch in value):
        return False
    words = textutil.words(value.rstrip("/").rsplit("/", 1)[-1])
    return bool(words) and set(words) <= stem_words


# The names a vault gives the folder of its general notes (kepano's template `Notes/`, PARA's `Inbox`)
GENERAL_FOLDER_NAMES = ("inbox", "notes")


def _general_folder(cfg: Config, own_layout: bool) -> str | None:
    """The vault's folder for general notes, by its name: a top folder named Inbox or Notes (numbers
    aside: `00 - INBOX`) in a vault with a layout of its own or that numbers its top folders (PARA).
    Elsewhere such a folder says nothing: the plugin's layout."""
    folders = _top_folders(cfg)
    numbered = [f for f in folders if _NUMBERED_RE.match(f) and not f[:1].isalpha()]
    if not own_layout and len(numbered) < 3:
        return None
    by_name = {textutil.fold(_NUMBERED_RE.sub("", f) if f in numbered else f): f for f in folders}
    for name in GENERAL_FOLDER_NAMES:
        if name in by_name:
            return by_name[name]
    return None


def _spelling(counts: Counter, folded: Counter, concept: str, n: int) -> str | None:
    """The vault's spelling of `concept` (the most used key of its first tier in use), or None."""
    for tier in CONCEPTS[concept]:
        used = [(folded[k], k) for k in tier if folded[k] >= max(1, IN_USE_SHARE * n)]
        if used:
            key = max(used)[1]
            return max((c, k) for k, c in counts.items() if k.strip().lower() == key)[1]
    return None


def _files_by_kind(cfg: Config) -> bool:
    """The vault already files notes by kind in folders of the plugin's layout (`Decisions/`, `pitfalls/`)."""
    return any(_type_folder(cfg, t)[1] for t in PLURAL)


# The files that say where daily notes go (appsettings.daily_notes), whose journal `measure` leaves out
DAILY_SETTINGS = (".obsidian/daily-notes.json", ".obsidian/plugins/periodic-notes/data.json", "logseq/config.edn",
                  ".foam/templates/daily-note.md", ".vscode/settings.json")


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


STYLE_FILE = "style.json"  # beside the index: `of` for its last state (index/derived.py)
_STYLE_FIELDS = ("dialect", "notes", "keys", "schema", "constants", "empty", "named", "category_key", "h1", "slug",
                 "new_note_folder", "home_folder", "own_layout", "links_properties")


def _new_note_folder(vault: str, dialect: str) -> str | None:
    """Where the app puts a new note: the folder its settings name, or in a Dendron workspace the vault
    the owner writes in (appsettings.dendron_write_vault: never beside the vaults, where Dendron would
    not see the note)."""
    from ..vault import appsettings

    folder = appsettings.new_note_folder(vault, dialect)
    return appsettings.dendron_write_vault(vault) if folder is None and dialect == "dendron" else folder


def of(cfg: Config, conn: sqlite3.Connection) -> Style:
    """`measure`, made again when the settings it reads change, or the index is rebuilt, or its note
    count moves by more than about 1% (derived.SHARE_BITS): `remember` at 10,000 notes spent a third
    of its time measuring the vault again after each note it wrote."""
    from ..index import derived
    from ..vault import appsettings

    dialect = cfg.values.get("dialect", "plain")
    vault = str(cfg.vault)
    # what `measure` reads besides the notes (whose changes move the index's state): the settings
    # (a Dendron workspace's vault by its dendron.yml, not chosen again: that parses the file and
    # lists each vault on every write, where its note counts move the index's state anyway)
    inputs = [_STYLE_FIELDS, dialect, appsettings.new_note_folder(vault, dialect), cfg.journal_folder,
              appsettings.templates_folder(vault, dialect), _files_by_kind(cfg),
              [_mtime(os.path.join(vault, f)) for f in (*DAILY_SETTINGS, "dendron.yml")]]

    def compute() -> dict:
        st = measure(cfg, conn)
        d = {k: getattr(st, k) for k in _STYLE_FIELDS}
        d["schema"] = sorted(d["schema"])
        return d

    d = derived.cached(conn, STYLE_FILE, compute, inputs, shares=True)
    st = Style()
    for k in _STYLE_FIELDS:
        setattr(st, k, d[k])
    st.schema = set(st.schema)
    st.constants = [tuple(x) for x in st.constants]
    st.empty = [tuple(x) for x in st.empty]
    return st


def measure(cfg: Config, conn: sqlite3.Connection) -> Style:
    """The vault's way of filing a note, read from its app's settings and its notes: the properties
    most notes carry and how they spell them, the category property, whether notes open with an H1,
    slug file names, and the one folder its notes live in. Its folders say where a new note goes (its
    own layout) when an app has marked it, or when its notes show they were written for one (they link
    to the vault's files or carry front matter, LINKED_SHARE) and it does not already file by kind in
    the plugin's layout."""
    from ..vault import appsettings

    st = Style()
    st.dialect = cfg.values.get("dialect", "plain")
    st.own_layout = st.dialect != "plain"  # a folder no app marked shows it by its notes, measured below
    vault = str(cfg.vault)
    st.new_note_folder = _new_note_folder(vault, st.dialect)
    daily = appsettings.daily_notes(vault, st.dialect)
    skip = tuple(f + "/" for f in (daily.home if daily else None, cfg.journal_folder.strip("/"),
                                   appsettings.templates_folder(vault, st.dialect)) if f)
    counts: Counter = Counter()
    folded: Counter = Counter()
    values: dict[str, Counter] = {}
    by_name: Counter = Counter()  # key -> notes whose value is a slug of their own file name
    cat_links = Counter()
    folders: Counter = Counter()
    names = slugs = with_props = linked = linking = 0
    n = texts = h1s = 0
    # shares are read from an even sample of a large vault (every k-th note): STYLE_SAMPLE notes
    # measure a share to within a few points, and `remember` at 10k notes stays within its budget
    categories = _category_notes(conn)
    total = conn.execute("SELECT max(id) FROM notes").fetchone()[0] or 0
    step = max(1, -(-total // STYLE_SAMPLE))
    for path, folder, props, head, links in conn.execute(
            "SELECT n.path, n.folder, n.props, substr(f.body, 1, 400), "
            "EXISTS(SELECT 1 FROM links l WHERE l.src = n.path AND l.target IS NOT NULL) "
            "FROM notes n JOIN fts f ON f.rowid = n.id "
            "WHERE n.private = 0 AND n.skipped = 0 AND n.type != 'journal' AND n.id % ? = 0", (step,)):
        if skip and path.startswith(skip):
            continue
        p = json.loads(props or "{}")
        stem = path.rsplit("/", 1)[-1][:-3]
        if path in categories and not any(
                k.strip().lower() in CATEGORY_KEYS for k in p):
            continue  # a category note, not a member of one
        n += 1
        linking += links
        folders[folder or ""] += 1
        if re.search(r"[\s_-]", stem):
            names += 1
            slugs += bool(_SLUG_RE.fullmatch(stem))
        if head and head.strip():
            texts += 1
            h1s += bool(re.match(r"\s*#[ \t]", head))
        if p:
            with_props += 1
            linked += any(_is_link(v) for v in p.values())
        stem_words = set(textutil.words(stem)) if p else set()
        for k, v in p.items():
            counts[k] += 1
            folded[k.strip().lower()] += 1
            if not isinstance(v, (dict, list)) or (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                values.setdefault(k, Counter())[json.dumps(v, ensure_ascii=False, sort_keys=True)] += 1
            if k.strip().lower() in CATEGORY_KEYS and _is_link(v):
                cat_links[k] += 1
            by_name[k] += _named_by_file(v, stem_words)
    st.notes = n
    if n < MIN_NOTES:
        return st
    st.h1 = not st.outliner and h1s >= H1_SHARE * texts if texts >= MIN_NOTES else not st.outliner
    st.slug = names >= MIN_NOTES and slugs >= SLUG_SHARE * names
    st.links_properties = with_props >= MIN_NOTES and linked >= SCHEMA_SHARE * with_props
    if not st.own_layout:
        st.own_layout = (linking >= LINKED_SHARE * n or with_props >= SCHEMA_SHARE * n) and not _files_by_kind(cfg)
    top, count = folders.most_common(1)[0]
    if count >= ONE_FOLDER_SHARE * n:
        st.home_folder = top
    if not with_props:
        return st
    for concept in CONCEPTS:
        key = _spelling(counts, folded, concept, with_props)
        if key is not None:
            st.keys[concept] = key
            tier = {k for t in CONCEPTS[concept] for k in t}
            if sum(c for k, c in folded.items() if k in tier) >= SCHEMA_SHARE * with_props:
                st.schema.add(concept)
    if cat_links:
        key, c = cat_links.most_common(1)[0]
        if c >= SCHEMA_SHARE * with_props:
            st.category_key = key
    spelled = {k.strip().lower() for t in CONCEPTS.values() for tier in t for k in tier}
    for key, c in counts.most_common():
        low = key.strip().lower()
        if c < SCHEMA_SHARE * with_props:
            break
        if low in OWN_KEYS or low in spelled or low in CATEGORY_KEYS or key not in values:
            continue
        value, vc = values[key].most_common(1)[0]
        v = json.loads(value)
        if vc >= CONSTANT_SHARE * c and v not in (None, "", []) and not _is_link(v):
            st.constants.append((key, v))
        elif by_name[key] >= SCHEMA_SHARE * c and len(values[key]) >= OWN_VALUE_SHARE * c:
            st.named.append(key)  # each note's own slug: the new note gets one of its title
        elif low not in WRITTEN_ELSEWHERE:
            # a property of the vault's note shape whose value each note fills (`topics:`): there, empty
            lists = sum(n for vj, n in values[key].items() if vj.startswith("["))
            st.empty.append((key, [] if lists * 2 >= c else ""))
    return st


def category_value(conn: sqlite3.Connection, type_: str) -> str:
    """The category note a memory of `type_` belongs to: the note named for the kind (plural or
    singular, any case) when the vault has one, else the plural name (a new category)."""
    plural = PLURAL.get(type_, type_ + "s")
    wanted = {textutil.fold(plural), textutil.fold(type_)}
    for (path,) in conn.execute("SELECT path FROM notes WHERE private = 0 AND type != 'journal' ORDER BY path"):
        if textutil.fold(path.rsplit("/", 1)[-1][:-3]) in wanted:
            return f"[[{link_name(conn, path)}]]"
    return f"[[{plural.capitalize()}]]"
