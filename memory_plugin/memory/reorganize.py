"""Hygiene proposals for the vault, and applying the ones a user picks.

Only safe changes are ever applied: a new note (a hub for a community, a stub that points a
dangling link at its intended note) or property lines (`status: stale`, a `summary`). Nothing is
deleted and no body text is rewritten; everything else is listed with a suggestion.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import re
import sqlite3
from collections import Counter, defaultdict
from typing import Any, Callable

from . import write as M
from ..index import lifecycle as L
from ..vault import appsettings, propedit
from ..vault.links import mask_non_content
from ..core import textutil as T
from ..core.config import Config
from ..core.errors import MemoryPluginError
from ..core.fsutil import atomic_write

KIND_TITLES = {
    "duplicate": "Possible duplicates", "dangling": "Dangling links", "orphan": "Orphans",
    "empty": "Empty notes",
    "stale": "Memories below the prune threshold", "contradiction": "Contradictions left open",
    "missing-summary": "Notes without a summary", "no-hub": "Communities without a hub note",
    "superseded-linked": "Superseded notes still linked as current",
    "code-changed": "Notes whose code changed or vanished",
}
MEMORY_KINDS = {"decision", "pitfall", "pattern", "learning"}  # stale-able without a stored confidence
# A merge of two notes that are not both memories is proposed from this lexical score (dupes.judge's
# THRESHOLD, 0.45, was set on pairs of memories and still decides those). Plain notes of real vaults
# that score 0.45-0.6 were, read by hand on the dialect dev vaults (cams-nexus, jimbrig-vault,
# owenyoung-wiki: 40 pairs), mostly neighbours on one topic (a tool and its upgrades, a list and one of
# its items, an export and an import); from 0.6 on mostly one text kept twice.
MERGE_SCORE = 0.60
MIN_SUMMARY_WORDS = 4  # a first paragraph shorter than this is no usable summary
SUMMARY_WORTHY = 25    # prose words (no code, links, headings) a note needs before a summary could condense
                       # anything: a diagram under its heading, an image and a caption say what they are
MAX_QUOTED = 50        # matches by meaning whose closest passages are quoted (the best first)
HUB_COVERS = 0.5       # an existing hub linking this share of a community's members already is its hub
MIN_HUB_GROUP = 5      # fewer notes than this find each other by their links alone: no index note proposed
FOLDER_NOTE_NAMES = ("index", "readme", "_readme", "_index", "home")  # a folder's own note, besides `F/F.md`
VERSION_MARK = 3       # Dendron siblings whose names differ by this many trailing letters at most are versions
# A series: notes of one folder named alike but for one word each (`Content Comments`, `Content Lists`,
# `Content Plugins`, `Content Themes`), at least this many of them. Its owner split a topic into its
# cases, as Dendron's siblings do, and wrote them alike by design: two of them are no duplicates. Two
# notes alone so named may be one note kept twice (a version mark or a number names a draft).
SERIES_MIN = 3
# Twins: duplicate pairs of one shape (each pair one note in place A and one in place B: a folder, or a
# Dendron hierarchy's parent; A may be B) from this many on are one proposal. Two importers of one
# article (a web clipper at the root, a Readwise export in `Clippings/`), a copy of the docs per
# version, `X.md` beside `X 1.md` after a sync conflict: one cause, which the owner decides once.
TWIN_SERIES_MIN = 3
# ... when one is the other's name with a copy's mark added (Obsidian's ` 1` after a clash, a browser's
# ` (1)`, an importer's id in brackets: `Title (01kdq9sw…)`), punctuation, accents and a doubled `.md`
# aside, or the other cut short by a clipper, who marks the cut with `…` (at least TWIN_CUT_MIN letters
# and digits kept); `Docker` and `Docker Best Practices`, `Chapter 1` and `Chapter 2` are two notes
# alike, each its own proposal
_COPY_MARK_RE = re.compile(r"(?:\s*[(\[][^()\[\]]*[)\]]|\s+\d{1,3}|-\d{1,3})$")
_CUT_MARKS = ("…", "...")
TWIN_CUT_MIN = 20
TYPO_MIN_CHARS = 6     # a dangling name one letter off a note's name meant that note from this length on
                       # (shorter names are one letter off many words: `cat` and `car`)
# The vault's own norms, read from its notes: a rule a vault does not follow is no fault of one note.
# SUMMARY_NORM: the share of notes (templates and journals aside) carrying a summary property
# (vault.notes.SUMMARY_KEYS, non-empty) from which the vault writes summaries, so a note without one
# lacks it. On five vaults of other apps (Logseq, Foam, Dendron with `desc: ''` on every note, two
# Obsidian) no note had one: a proposal there asked for a property the owner never writes.
SUMMARY_NORM = 0.25
# LINKING_NORM: the share of notes (templates and journals aside) linked in or out (or placed in a
# Dendron hierarchy) from which the vault is organised by links, so a note with none is cut off. A
# Foam wiki organised by tags has 47 of 158 notes with a link: an unlinked note there is the norm.
LINKING_NORM = 0.5
# A note whose `status:` says it is yet to be written (a digital garden's `draft`, `stub`, `seedling`)
# is one its owner made empty on purpose and already marked: no "empty note" proposal for it
DRAFT_STATUSES = frozenset({"draft", "stub", "todo", "wip", "seed", "seedling", "placeholder", "to write"})
# A dangling name written alike in this many notes or more is the owner's word (kepano's
# `type: "[[Task]]"` beside `categories: [[Tasks]]`, left unresolved on purpose; a Dendron note to
# write that four bibliography notes link), not a slip for the note of a like name: a slip is made
# once, a word kept.
VOCABULARY_NOTES = 3
# A one-word name is a word in its own right: one letter off a note's name (`writing` and `Waiting`) or a
# plural ending off it (`Emacs` and the person `emac`) is as often another word as a slip. A dangling
# one-word name the vault's prose writes (links, addresses, headings and comments aside) in this many
# notes besides the ones linking it is a word its owner uses, not a misspelling; and a plural ending
# folds a one-word name only when the vault's prose writes the singular too (outside the note of that
# name): `shell`/`Shells`, `Emails`/`Email`, never `Emacs`/`emac` where `emac` is only a handle.
WORD_NOTES = 2
_PAST_RE = re.compile(r"supersed|replaced|deprecated|histor|previous|\bold\b|\bwas\b|archive", re.I)


class ReorganizeError(MemoryPluginError):
    pass


NOTES_SQL = ("SELECT n.path, n.title, n.display_title, n.type, n.status, n.summary, n.props, n.created, n.hash, "
             "n.folder, n.project, n.hub, f.body FROM notes n JOIN fts f ON f.rowid = n.id "
             "WHERE n.private = 0 AND n.skipped = 0")


def _rows(conn, sql, args=()):
    cur = conn.execute(sql, args)
    cols = [c[0] for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def proposals(cfg: Config, conn: sqlite3.Connection, today: _dt.date | None = None,
              communities: bool = True, repo: str | None = None) -> list[dict]:
    """Every proposal, numbered from 1 in a stable order (kind, then path). `repo`: the git repository
    the working folder is in, whose code the notes citing it are checked against."""
    today = today or _dt.date.today()
    notes = _rows(conn, NOTES_SQL)
    for n in notes:
        n["props"] = json.loads(n["props"] or "{}")
    by_path = {n["path"]: n for n in notes}
    vs = VaultShape.read(cfg, notes)
    succ = L.successors(conn)
    out: list[dict] = []
    # templates and journals are the vault's own machinery: never a duplicate, orphan or summary to write
    ordinary = [n for n in notes if n["path"] not in vs.templates and n["path"] not in vs.journals
                and not vs.app_made(n["path"])]
    out += _duplicates(ordinary, cfg, conn, [n for n in notes if n["path"] in vs.templates], vs.dialect)
    out += _dangling(conn, by_path, vs)
    out += _orphans_and_empty(conn, ordinary, vs, notes)
    out += _stale(cfg, conn, notes, today, succ)
    out += _contradictions(conn, by_path, succ)
    out += _missing_summaries(ordinary, cfg, conn, vs)
    if communities:
        out += _no_hub(cfg, conn, {n["path"]: n for n in ordinary}, today, vs)
    out += _superseded_linked(cfg, conn, by_path, succ)
    if repo:
        out += _code_changed(cfg, conn, by_path, succ, repo)
    for i, p in enumerate(out, 1):
        p["id"] = i
    return out


# ---------------------------------------------------------------- the vault's own shape

# Pages Logseq makes itself: the Contents page and one page per task marker (`TODO`, `DONE` ...)
LOGSEQ_BUILTIN_PAGES = {"contents", "todo", "doing", "done", "later", "now", "wait", "waiting", "canceled",
                        "cancelled", "in-progress", "card", "favorites"}
# Apps that make a page when a link to a missing one is followed (Logseq, Dendron): an empty page other
# notes link to is how those apps keep a topic, not an unwritten note
LINK_MADE_PAGES = ("logseq", "dendron")
LOGSEQ_HIGHLIGHTS_PREFIX = "hls__"  # the page Logseq's PDF reader keeps a PDF's highlights in
_TEMPLATE_LINE_RE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?template::", re.M)   # a Logseq template block
def _in_template_folder(path: str) -> bool:
    """A note in a folder named for templates (appsettings.in_template_folder: `01 Templates` under
    `00 - Contribute/`), where a vault without settings naming one keeps them. Template notes are alike
    by design and hold placeholder links (`[[placeholder/link]]`): no duplicate, no dangling link."""
    from ..vault.appsettings import in_template_folder

    return in_template_folder(path)


class VaultShape:
    """What the vault's own settings and names say about its notes: which are templates, which are
    journals, and (Dendron) its dot hierarchy."""

    def __init__(self, dialect: str, templates: set[str], journals: set[str], parent: dict[str, str | None],
                 children: set[str], rooted: set[str] | None = None, unreported: tuple[str, ...] = ()):
        self.dialect, self.templates, self.journals = dialect, templates, journals
        self.unreported = unreported  # globs the app leaves out of its orphans report (Foam's settings)
        self.parent = parent      # Dendron: note path -> its nearest existing ancestor (None: a stub's child)
        self.children = children  # Dendron: notes with a note below them in the hierarchy
        self.rooted = rooted or set()  # Dendron: `root.md` and the top-level notes its tree shows below it

    @classmethod
    def read(cls, cfg: Config, notes: list[dict]) -> "VaultShape":
        vault = cfg.vault
        dialect = str(cfg.values.get("dialect") or "")
        tfolders, jfolders = appsettings.machinery_folders(str(vault), dialect)
        jfolders = [f for f in [str(cfg.values.get("journal_folder") or "").strip("/")] + jfolders if f]
        templates, journals = set(), set()
        for n in notes:
            path = n["path"]
            if any(path.startswith(f + "/") for f in tfolders) or _in_template_folder(path) or (
                    dialect == "dendron" and path.rsplit("/", 1)[-1].startswith("templates.")) or (
                    dialect == "logseq" and "template::" in (n["body"] or "")
                    and _TEMPLATE_LINE_RE.search(n["body"] or "")):
                templates.add(path)
            elif n["type"] == "journal" or any(path.startswith(f + "/") for f in jfolders) or (
                    dialect == "dendron" and appsettings.DENDRON_JOURNAL_RE.search(path[:-3])):
                journals.add(path)
        parent: dict[str, str | None] = {}
        children: set[str] = set()
        rooted: set[str] = set()
        if dialect == "dendron":
            # Dendron's tree hangs every top-level note (`a.md`) below the vault's `root.md`
            roots = {n["path"].rpartition("/")[0] for n in notes if n["path"].rsplit("/", 1)[-1].lower() == "root.md"}
            rooted = {n["path"] for n in notes if n["path"].rpartition("/")[0] in roots}
            by_name = {n["path"][:-3].lower(): n["path"] for n in notes if n["path"].endswith(".md")}
            for name, path in by_name.items():
                stem, _, _ = name.rpartition(".")
                up = None
                while stem:
                    up = by_name.get(stem)
                    if up:
                        break
                    stem = stem.rpartition(".")[0]
                if "." in name.rsplit("/", 1)[-1]:
                    parent[path] = up
                if up:
                    children.add(up)
        unreported = tuple(appsettings.foam_unreported(str(vault))) if dialect == "foam" else ()
        return cls(dialect, templates, journals, parent, children, rooted, unreported)

    def unreported_orphan(self, path: str) -> bool:
        """A note in a folder or glob the app's settings leave out of its orphans report (Foam's
        `foam.orphans.exclude`, `foam.files.ignore`: a scratch buffer, the journal)."""
        import fnmatch

        return any(path.startswith(g + "/") or fnmatch.fnmatch(path, g) or fnmatch.fnmatch(path, g + "/*")
                   for g in self.unreported)

    def in_hierarchy(self, path: str) -> bool:
        """A Dendron note with a parent (a note, a stub or `root.md`) or children: the tree shows it, it
        is no orphan."""
        return path in self.parent or path in self.children or path in self.rooted

    def machinery(self, path: str) -> bool:
        """A note the app's structure makes rather than its owner's words: a template, a journal, a
        Dendron hierarchy node with notes below it, the vault's `root.md` or a tag's note (`tags.x.md`,
        which Dendron's `#x` links to)."""
        name = path.rsplit("/", 1)[-1].lower()
        return (path in self.templates or path in self.journals or path in self.children
                or (self.dialect == "dendron" and (name == "root.md" or name.startswith("tags.")))
                or (self.dialect == "logseq" and name[:-3] in LOGSEQ_BUILTIN_PAGES) or self.app_made(path))

    def app_made(self, path: str) -> bool:
        """A page the app writes beside a file: Logseq's PDF highlights page (`hls__<pdf name>.md`, with
        `file::` and `file-path::`), the companion of the paper's own page, never its duplicate."""
        return self.dialect == "logseq" and path.rsplit("/", 1)[-1].lower().startswith(LOGSEQ_HIGHLIGHTS_PREFIX)

    def root(self, path: str) -> str | None:
        """A Dendron note's hierarchy root (`a` for `a.b.c.md`), None for a note outside one."""
        if path not in self.parent and path not in self.children:
            return None
        return path.rsplit("/", 1)[-1].split(".", 1)[0].lower()


def _linked(conn) -> tuple[set[str], set[str]]:
    """(notes with a link in or out of any kind, notes other notes link to)."""
    linked, targets = set(), set()
    for src, target in conn.execute("SELECT src, target FROM links WHERE target IS NULL OR target != src"):
        linked.add(src)
        if target is not None:
            linked.add(target)
            targets.add(target)
    return linked, targets


MENTIONS_SHOWN = 3  # notes named as the places that mention an orphan


MENTIONS_READ = 40  # notes whose text matches the name, read to find the mentions in prose
# A one-word name is a word in other senses too (`Agenti`: the AI agents of one note, the external
# agents of a skincare note): a mention of it counts where the mentioning note also uses CONTEXT_SHARED
# of the orphan's CONTEXT_WORDS rarest words (the orphan's own subject around the word; one shared
# word is chance, and a stub of a few words has no subject to share)
CONTEXT_WORDS = 12
CONTEXT_SHARED = 2
_NOT_PROSE_RE = re.compile(r"!?\[\[[^\]\n]*\]\]|\[[^\]\n]*\]\([^)\n]*\)|[a-z][\w+.-]*://\S+|^[ \t]*(?:[-*+][ \t]+)?#{1,6}[ \t][^\n]*",
                           re.M | re.I)


def _context(conn, n: dict, words: list[str]) -> set[str]:
    """The CONTEXT_WORDS rarest words of note `n`'s text (its name's words aside) that some other
    note uses too (fts5vocab's document counts)."""
    from . import dupes

    idf = dupes.Idf.from_index(conn)
    mine = {w for w in T.words(n["body"] or "") if w not in words and len(w) > 2} - T.STOPWORDS
    if len(mine) < dupes.MIN_TERMS:
        return set()  # a stub (dupes' near-empty note): it has no subject of its own to share
    shared = [w for w in mine if (idf.lookup(w) if idf.lookup else 0) >= 2]
    return set(sorted(shared, key=lambda w: (-idf(w, w), w))[:CONTEXT_WORDS])


def _mentions(conn, n: dict, vs: "VaultShape | None" = None) -> list[str]:
    """Other notes whose text names note `n` (its title as a phrase) without linking it: where its
    owner would link it from (Obsidian's "unlinked mentions"); for a one-word name, only where the
    note also shares its subject (`_context`)."""
    words = T.WORD_RE.findall(T.fold(n["display_title"] or n["title"] or ""))
    if not words:
        return []
    context = _context(conn, n, words) if len(words) == 1 else None
    if context is not None and len(context) < CONTEXT_SHARED:
        return []  # a stub of a one-word name: nothing tells which sense the other notes use
    phrase = '"' + " ".join(words) + '"'
    try:
        rows = conn.execute("SELECT n.path, fts.body FROM fts JOIN notes n ON n.id = fts.rowid WHERE fts MATCH ? "
                            "AND n.path != ? AND n.private = 0 ORDER BY n.path LIMIT ?",
                            (f"body : {phrase}", n["path"], MENTIONS_READ)).fetchall()
    except sqlite3.OperationalError:
        return []
    # a mention in prose: not inside a link's text or address, a URL, a heading or code (a name there
    # is another note's name, an address, a section or an identifier: no place to link from)
    wanted = " ".join(words)
    out = []
    for path, body in rows:
        if vs is not None and vs.app_made(path):
            continue  # a page the app wrote (the PDF's highlights name the paper's file): no place to link from
        prose = _NOT_PROSE_RE.sub(" ", mask_non_content(body or ""))  # (code is no place to link from)
        said = T.WORD_RE.findall(T.fold(prose))
        if context is not None and len(context & set(said)) < CONTEXT_SHARED:
            continue  # the word in another sense
        if f" {wanted} " in " " + " ".join(said) + " ":
            out.append(path)
            if len(out) >= MENTIONS_SHOWN:
                break
    return out


# Properties that file or date a note, or that its app and the plugin keep: they say nothing of the
# note's own subject. Any other property with a value (`author: [[Kevin Kelly]]`, `isbn:`, `url:`) is
# what a property-first note holds instead of prose (kepano's References/): it is not empty.
NOT_FACTS = {"id", "uid", "title", "tags", "tag", "aliases", "alias", "cssclasses", "cssclass", "publish",
             "permalink", "created", "updated", "modified", "date", "categories", "category", "type",
             "status", "confidence", "last_validated", "private"}


def _has_facts(n: dict) -> bool:
    """The note's properties hold something of its own (a value under a key not in NOT_FACTS)."""
    return any(str(k).strip().lower() not in NOT_FACTS and v not in (None, "", [], {})
               for k, v in (n.get("props") or {}).items())


_BLOCK_REF_RE = re.compile(r"\(\(([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\)\)")
_BLOCK_ID_RE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?id::[ \t]*([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
                          r"[ \t]*$", re.M)


def _block_linked(notes: list[dict]) -> set[str]:
    """Logseq pages joined by a block reference (`((uuid))`, also in `{{embed ((uuid))}}`) to the page
    whose block carries that `id::`: the referring page and the referred one, as Logseq links them."""
    owner = {u: n["path"] for n in notes for u in _BLOCK_ID_RE.findall(n["body"] or "")}
    return {p for n in notes for u in _BLOCK_REF_RE.findall(n["body"] or "")
            if owner.get(u, n["path"]) != n["path"] for p in (n["path"], owner[u])}


def _orphans_and_empty(conn, notes: list[dict], vs: VaultShape, every: list[dict] | None = None) -> list[dict]:
    """Notes nothing reaches: no link in or out of any kind (body, embed, property, to a note, an
    attachment or a note yet to be written; in Logseq a block reference among `every` note,
    `_block_linked`), no Dendron hierarchy around them, no folder note in their
    folder, no tag shared with another note (the tag pane, Foam's tag explorer and Logseq's tag pages
    gather those); proposed only in a vault organised by links (LINKING_NORM) and where another note
    names it without a link (`_mentions`: the place to link it from). The empty ones (no text
    at all) are one proposal: a file made and never written is not a note to link. Empty notes that
    other notes link to are another: a link that opens nothing (not in Logseq, where a page exists
    to gather what references it, nor a Dendron hierarchy node)."""
    linked, targets = _linked(conn)
    if vs.dialect == "logseq":
        linked |= _block_linked(every or notes)
    tag_count = Counter(t for (t,) in conn.execute("SELECT DISTINCT path || char(0) || tag_lc FROM tags"))
    shared = Counter(t.split("\0", 1)[1] for t in tag_count)
    tagged = {t.split("\0", 1)[0] for t in tag_count if shared[t.split("\0", 1)[1]] > 1}
    paths_lc = {p.lower() for (p,) in conn.execute("SELECT path FROM files")}
    orphans, empty, empty_linked = [], [], []
    n_linked = 0
    for n in sorted(notes, key=lambda n: n["path"]):
        p = n["path"]
        if p in linked or vs.in_hierarchy(p):
            n_linked += 1
            if p in targets and vs.dialect not in LINK_MADE_PAGES and not vs.machinery(p) \
                    and n["status"] not in DRAFT_STATUSES and not T.words(n["body"] or "") and not _has_facts(n):
                empty_linked.append(p)
            continue
        if p in tagged:
            continue
        if "/" in p and _folder_note(p.rsplit("/", 1)[0], paths_lc):
            continue  # its folder's note is the way in (a folder-note plugin shows it as the folder's page)
        if vs.machinery(p):
            continue
        if T.words(n["body"] or "") or _has_facts(n):
            if not vs.unreported_orphan(p):
                orphans.append(n)
        elif n["status"] not in DRAFT_STATUSES:
            empty.append(n)
    share = n_linked / len(notes) if notes else 0.0
    out = []
    for n in orphans if share >= LINKING_NORM else ():
        where = _mentions(conn, n, vs)
        if not where:
            continue  # nothing names it: no place to link it from, it stands alone by design or by chance
        out.append({"kind": "orphan", "title": f"{n['path']} has no links in or out", "notes": [n["path"]],
                    "action": None,
                    "reasons": ["nothing links to it, it links nowhere, and it shares no tag with another note",
                                f"{share:.0%} of the vault's notes are linked in or out",
                                f"`{n['display_title']}` is named, unlinked, in {', '.join(where)}"],
                    "suggestion": f"link it where {where[0]} names it, or leave it be"})
    empty = [n["path"] for n in empty]
    if empty_linked:
        shown = ", ".join(empty_linked[:5]) + (" …" if len(empty_linked) > 5 else "")
        out.append({"kind": "empty", "title": f"{len(empty_linked)} note{'s' if len(empty_linked) > 1 else ''} "
                                               f"without any text that other notes link to: {shown}",
                    "notes": empty_linked, "action": None,
                    "reasons": ["no text (at most a date, tags or a category); a link to it opens an empty note"],
                    "suggestion": "write what the links expect there, or point the links elsewhere"})
    if empty:
        shown = ", ".join(empty[:5]) + (" …" if len(empty) > 5 else "")
        out.append({"kind": "empty", "title": f"{len(empty)} note{'s' if len(empty) > 1 else ''} without any text "
                                               f"that nothing links to: {shown}", "notes": empty, "action": None,
                    "reasons": ["no text (at most a date, tags or a category), no link in or out"],
                    "suggestion": "write them or delete them by hand"})
    return out


def _category(n: dict) -> set[str]:
    """The kinds the vault files a note under by a category-like property (`category: reference/videos`,
    `categories: [[Books]]`), folded; empty when it has none."""
    v = n["props"].get("category") or n["props"].get("categories")
    vals = v if isinstance(v, list) else [v] if v else []
    return {T.fold(str(x)).strip("[]\" ") for x in vals if isinstance(x, (str, int, float))} - {""}


def _kinds_apart(a: dict, b: dict, inbox: str | None = None) -> str | None:
    """Why the vault keeps notes `a` and `b` apart as two kinds (a permanent note and the reference
    note it was written from; an area's guide and the article it draws on), or None: different
    category-like properties, or different top-level folders (PARA's areas and resources, a
    slip-box's permanent/ and reference/). Such a pair is a note and its source, to link, not to merge.
    A note in the app's new-note folder (`inbox`) is not filed yet: a copy there is a copy to merge."""
    ca, cb = _category(a), _category(b)
    if ca and cb and not ca & cb:
        return "the vault files them apart: category {} and {}".format(*sorted((", ".join(sorted(ca)),
                                                                                ", ".join(sorted(cb)))))
    fa, fb = (n["path"].split("/", 1)[0] if "/" in n["path"] else "" for n in (a, b))
    if fa and fb and fa != fb and (inbox or "").split("/", 1)[0] not in (fa, fb):
        return "the vault files them apart: {}/ and {}/".format(*sorted((fa, fb)))
    return None


IDENTIFIER_KEYS = ("doi", "isbn", "url")  # properties naming the one work a note is about


def _identifiers(n: dict, dialect: str) -> dict[str, str]:
    """The identifiers a note gives for the work it is about (front matter, or Logseq's `key::` page
    properties: a Zotero literature page's `doi::`, `url::`), folded."""
    from ..vault.dialect import logseq_page_props

    body = n["body"] or ""
    page = logseq_page_props(body) if dialect == "logseq" and "::" in body[:4000] else {}
    out = {}
    for k in IDENTIFIER_KEYS:
        v = n["props"].get(k) or page.get(k)
        if isinstance(v, (str, int, float)) and str(v).strip():
            out[k] = T.fold(str(v)).strip().rstrip("/")
    return out


def _prose_terms(n: dict) -> int:
    """How many content words a note says beyond where it points: its body without links, addresses
    and headings (and its summary property). A note of links and URLs only (a bookmark card, a
    list of a template's property links) is compared by where it points, not by its words."""
    from . import dupes

    text = _NOT_PROSE_RE.sub(" ", n["body"] or "")
    if _has_summary(n["props"]):
        text += " " + (n["summary"] or "")
    return len(dupes.tokens(text))


_COMMENT_RE = re.compile(r"%%.*?%%|<!--.*?-->", re.S)  # Obsidian's and HTML comments: hidden when the note is read


def _own_terms(n: dict, doc, idf) -> int:
    """How many content words a note says of its own (counted as `_prose_terms` counts them): words of
    its prose (no links, addresses, headings or comments: a template's instructions hide in `%% ... %%`)
    that are not in a passage of its template or of the vault's boilerplate (`dupes._content`). A person
    card made from the vault's author template says its handle and little else: it is no one's
    duplicate, however much of the template it shares with every other card."""
    from . import dupes

    prose = _NOT_PROSE_RE.sub(" ", _COMMENT_RE.sub(" ", n["body"] or ""))
    if _has_summary(n["props"]):
        prose += " " + (n["summary"] or "")
    own = {t for t, _ in dupes._content(doc, idf)}
    return sum(1 for t, _ in dupes.tokens(prose) if t in own)


def _cases_of_one_topic(a: str, b: str) -> bool:
    """Dendron notes whose names differ in one part, named for different things: siblings
    (`db.using.mysql`, `db.using.sqlite`) or one aspect of two things (`zb.switch.device-signature`,
    `zb.sensor.device-signature`). The owner split a topic into its cases, each note one case, alike
    by design. Names that differ only by a version mark (`plan`, `plan2`; `key_`, `key_a`: VERSION_MARK
    letters or fewer after a common start of at least as many) are drafts of one note, not cases."""
    pa = a.rsplit("/", 1)[-1].lower().removesuffix(".md").split(".")
    pb = b.rsplit("/", 1)[-1].lower().removesuffix(".md").split(".")
    diff = [(x, y) for x, y in zip(pa, pb) if x != y]
    if len(pa) < 2 or len(pa) != len(pb) or len(diff) != 1:
        return False
    x, y = diff[0]
    common = len(os.path.commonprefix([x, y]))
    return not (common >= VERSION_MARK and max(len(x), len(y)) - common <= VERSION_MARK)


def _name_words(path: str) -> tuple[str, list[str]]:
    folder, _, name = path.rpartition("/")
    return folder, T.WORD_RE.findall(T.fold(name[:-3] if name.lower().endswith(".md") else name))


def _series(paths: list[str]) -> Counter:
    """{(folder, word count, position, the other words): how many notes of that folder are so named}:
    the series `_in_one_series` reads."""
    out: Counter = Counter()
    for p in paths:
        folder, words = _name_words(p)
        if len(words) >= 2:
            out.update((folder, len(words), i, tuple(words[:i] + words[i + 1:])) for i in range(len(words)))
    return out


def _in_one_series(a: str, b: str, series: Counter) -> bool:
    """Notes `a` and `b` of one folder whose names differ in one word, neither a number nor a version
    mark of the other (`plan`, `plans`; `key`, `key_a`), in a series of SERIES_MIN notes or more so named:
    two cases of one topic (`_cases_of_one_topic` outside Dendron)."""
    (fa, wa), (fb, wb) = _name_words(a), _name_words(b)
    if fa != fb or len(wa) != len(wb) or len(wa) < 2:
        return False
    diff = [i for i, (x, y) in enumerate(zip(wa, wb)) if x != y]
    if len(diff) != 1:
        return False
    i = diff[0]
    x, y = wa[i], wb[i]
    if x.isdigit() or y.isdigit():
        return False
    common = len(os.path.commonprefix([x, y]))
    if common >= VERSION_MARK and max(len(x), len(y)) - common <= VERSION_MARK:
        return False
    return series[(fa, len(wa), i, tuple(wa[:i] + wa[i + 1:]))] >= SERIES_MIN


LISTING_SHARE = 0.8    # a note whose lines are this share of rows naming a note (table rows, list items) ...
_ROW_RE = re.compile(r"^[ \t]*(?:\||[-*+][ \t]|\d+[.)][ \t]).*(?:\[\[|\]\((?![a-z][\w+.-]*:))", re.I)  # (a note's link,
# never a web address: a list of bookmarks is compared by what it holds)
_ROW_RULE_RE = re.compile(r"^[ \t]*\|?[ \t:|-]*-[ \t:|-]*$")


def _is_listing(body: str) -> bool:
    """A note that is a list of notes (`LISTING_SHARE` of its lines are table rows or list items with a
    link to a note, MIN_HUB_GROUP of them at least): an index, a generated "recently edited" table."""
    lines = [ln for ln in _COMMENT_RE.sub(" ", body or "").split("\n")
             if ln.strip() and not _HEADING_LINE_RE.match(ln) and not _ROW_RULE_RE.match(ln)]
    rows = sum(1 for ln in lines if _ROW_RE.match(ln))
    return rows >= MIN_HUB_GROUP and rows >= LISTING_SHARE * len(lines)


def _duplicates(notes: list[dict], cfg: Config | None = None, conn: sqlite3.Connection | None = None,
                templates: list[dict] = (), dialect: str = "") -> list[dict]:
    """Pairs the duplicate judge calls near-duplicates: by text (lexical), or, in semantic mode with
    the index's vectors current, by text or meaning (`dupes.combine`). Notes alike in a group of three
    or more (drafts of one plan) are one proposal; a pair the vault files apart (`_kinds_apart`) is
    proposed for a link, not a merge."""
    from . import dupes

    # hubs and folder notes (`F/F.md`, `F/_README.md` ...) list what their part of the vault holds: two
    # of them alike are two indexes of neighbouring folders, not one note written twice
    pool = [n for n in notes if n["type"] not in ("journal", "hub") and not n["hub"] and not _is_folder_note(n["path"])]
    for n in pool:
        if not isinstance(n["props"], dict):  # rows straight from NOTES_SQL
            n["props"] = json.loads(n["props"] or "{}")
    names = dupes.project_names(conn) if conn is not None else {}
    docs = [dupes.Doc(n["title"], n["type"], dupes.canon_project(n["project"], names), n["summary"] or "",
                      n["body"] or "",
                      (n["display_title"],) if n["display_title"] != n["title"] else (), n["path"], n["hash"])
            for n in pool]
    # A note that says (next to) nothing is no one's duplicate: empty pages, journals Logseq made for a
    # day, stubs. Identical notes that do say something are one proposal per group, not one per pair.
    out = []
    keep = []
    by_hash: dict[str, list[int]] = defaultdict(list)
    hashes = Counter(d.hash for d in docs if d.hash)
    for i, d in enumerate(docs):
        if len(dupes.tokens(d.summary + " " + d.body)) < dupes.MIN_TERMS:
            continue
        if _prose_terms(pool[i]) < dupes.MIN_TERMS and hashes[d.hash] < 2:
            continue  # links and addresses only: two such cards alike are two bookmarks of one template
        if hashes[d.hash] < 2 and _is_listing(d.body):
            continue  # a table or list of notes (a generated index): two of them are two views of the vault
        if d.hash:
            by_hash[d.hash].append(i)
            if len(by_hash[d.hash]) > 1:
                continue  # the first of a group of identical notes stands for the group below
        keep.append(i)
    for ids in by_hash.values():
        if len(ids) > 1:
            out.append(_identical([pool[i]["path"] for i in ids]))
    pool, docs = [pool[i] for i in keep], [docs[i] for i in keep]
    idf = dupes.Idf.from_docs(docs)
    # what the vault's templates write is the template's, not the notes' (a Dendron hierarchy's
    # siblings made from one template share its headings and prompts)
    idf.add_boilerplate(dupes.Doc(t["title"], body=t["body"] or "") for t in templates)
    # ... and a note that says next to nothing beyond its template and its links is no one's duplicate
    own = [i for i, d in enumerate(docs)
           if hashes[d.hash] > 1 or _own_terms(pool[i], d, idf) >= dupes.MIN_TERMS]
    pool, docs = [pool[i] for i in own], [docs[i] for i in own]
    pairs = dupes.candidate_pairs(docs, idf)
    sem = _note_vectors(cfg, conn, pool) if cfg is not None and conn is not None else None
    if sem is not None:
        from . import dupes_sem

        mat, row_of = sem
        ids = sorted(row_of, key=row_of.get)
        pairs |= {(ids[i], ids[j]) for i, j in dupes_sem.pairs_above(mat, dupes.SEM_CANDIDATE)}
    # a pair the vault already relates (one supersedes or contradicts the other) is decided: no proposal
    related = set()
    if conn is not None:
        related = {frozenset(r) for r in conn.execute(
            "SELECT src, target FROM links WHERE kind = 'property' AND target IS NOT NULL AND src != target "
            f"AND prop IN {L.in_sql((*L.SUPERSESSION, 'contradicts'))}")}
        # a note that embeds or links the other shows or names it by design (Dendron's note reference
        # `![[x#section]]`; a guide that says "see the reference note [[x]]"): a pair its author made
        related |= {frozenset(r) for r in conn.execute(
            "SELECT src, target FROM links WHERE target IS NOT NULL AND src != target")}
    series = _series([n["path"] for n in notes])
    judged = []
    for a, b in sorted(pairs):
        if frozenset((pool[a]["path"], pool[b]["path"])) in related:
            continue
        if dialect == "dendron" and _cases_of_one_topic(pool[a]["path"], pool[b]["path"]) \
                and pool[a]["hash"] != pool[b]["hash"]:
            continue
        if dialect != "dendron" and _in_one_series(pool[a]["path"], pool[b]["path"], series) \
                and pool[a]["hash"] != pool[b]["hash"]:
            continue
        ia, ib = _identifiers(pool[a], dialect), _identifiers(pool[b], dialect)
        if any(ia[k] != ib[k] for k in ia.keys() & ib.keys()):
            continue  # two works by their own identifiers (two papers of one template and one author)
        v = dupes.judge(docs[a], docs[b], idf)
        if sem is not None and a in sem[1] and b in sem[1]:
            v = dupes.combine(v, float(sem[0][sem[1][a]] @ sem[0][sem[1][b]]), dupes.SEM_THRESHOLD_VAULT, titles=True)
        memories = pool[a]["type"] in MEMORY_KINDS and pool[b]["type"] in MEMORY_KINDS
        if v.duplicate and (memories or v.cosine is not None or v.score >= MERGE_SCORE):
            judged.append((a, b, v))
    # the closest passages of the best matches by meaning (what the listing shows first): one batched
    # model call over their sentences, bounded so a templated vault's thousands of pairs cost seconds
    by_meaning = sorted(((a, b, v) for a, b, v in judged if v.cosine is not None and not dupes.has_passage(v)),
                        key=lambda t: -t[2].score)[:MAX_QUOTED]
    for (a, b, v), pair in zip(by_meaning, _closest(cfg, [(docs[a], docs[b]) for a, b, _ in by_meaning])):
        dupes.quote_closest(v, pair)
    inbox = appsettings.new_note_folder(str(cfg.vault), str(cfg.values.get("dialect") or "")) if cfg else None
    group: dict[int, int] = {}  # union-find over the pairs to merge: one proposal per group

    def top(i: int) -> int:
        while group.get(i, i) != i:
            i = group[i]
        return i

    best: dict[int, tuple] = {}
    merged: list[tuple] = []
    for a, b, v in judged:
        if not v.duplicate:
            continue
        apart = _kinds_apart(pool[a], pool[b], inbox)
        if apart:
            p1, p2 = sorted((pool[a]["path"], pool[b]["path"]))
            out.append({"kind": "duplicate", "title": f"{p1} and {p2} say much the same", "notes": [p1, p2],
                        "score": v.score, "reasons": [apart, *v.reasons], "by": v.by, "action": None,
                        "suggestion": "link one from the other (a note and its source), or merge by hand"})
            continue
        group[top(a)] = top(b)
        merged.append((a, b, v))
    members: dict[int, set[int]] = defaultdict(set)
    for a, b, v in merged:
        r = top(a)
        members[r] |= {a, b}
        if r not in best or v.score > best[r][2].score:
            best[r] = (a, b, v)
    for r, (a, b, v) in best.items():
        # the one that says least first: the suggestion supersedes it by the one that says most (a stub
        # by the page, a clip by its fuller copy), the older by the newer when they say as much
        ids = sorted(members[r], key=lambda i: (len(pool[i]["body"] or ""), str(pool[i]["created"] or ""),
                                                pool[i]["path"]))
        paths = [pool[i]["path"] for i in ids]
        if len(paths) == 2:
            title = f"{paths[0]} and {paths[1]} look alike"
            reasons = v.reasons
        else:
            title = f"{len(paths)} notes look alike: {', '.join(paths[:4])}{' …' if len(paths) > 4 else ''}"
            reasons = [f"closest: {pool[a]['path']} and {pool[b]['path']}", *v.reasons]
        out.append({"kind": "duplicate", "title": title, "notes": paths, "score": v.score, "reasons": reasons,
                    "by": v.by, "action": None,
                    "suggestion": f"merge by hand, or `memory-plugin supersede '{paths[0]}' '{paths[-1]}'`"
                                  + (" (and the others)" if len(paths) > 2 else "")})
    out.sort(key=lambda p: (-p["score"], p["notes"]))
    return _fold_twins(out, dialect)


def _place(path: str, dialect: str) -> str:
    """Where a note sits, as a twin's shape reads it: its folder, and in Dendron its hierarchy's parent."""
    folder, _, name = path.rpartition("/")
    if dialect == "dendron" and "." in name[:-3]:
        return f"{folder}/{name[:-3].rsplit('.', 1)[0]}.*" if folder else f"{name[:-3].rsplit('.', 1)[0]}.*"
    return folder + "/" if folder else "the vault root"


def _name_key(name: str) -> str:
    """A name as twins are compared: its letters and digits, accents and case folded."""
    from .dupes import _plain

    return "".join(c for c in _plain(T.fold(name)) if c.isalnum())


def _twins(a: str, b: str) -> bool:
    """Two notes' names are one but for a copy's mark on one of them, or one is the other cut short
    (_COPY_MARK_RE, _CUT_MARKS)."""
    def bare(name: str) -> str:
        return re.sub(r"(?:\.md)+$", "", name).strip()

    sa, sb = (bare(p.rsplit("/", 1)[-1][:-3]) for p in (a, b))
    ma, mb = bare(_COPY_MARK_RE.sub("", sa)), bare(_COPY_MARK_RE.sub("", sb))
    ka, kb = _name_key(sa), _name_key(sb)
    if not ka or not kb:
        return False
    if ka == kb or _name_key(ma) == kb or ka == _name_key(mb):
        return True
    for cut, full in ((ma, kb), (mb, ka)):
        short = _name_key(cut)
        if cut.endswith(_CUT_MARKS) and len(short) >= TWIN_CUT_MIN and full.startswith(short):
            return True
    return False


def _fold_twins(found: list[dict], dialect: str) -> list[dict]:
    """Pairs of twins (_twins) of one shape, TWIN_SERIES_MIN of
    them or more, as one proposal listing its pairs."""
    shapes: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for p in found:
        if len(p["notes"]) == 2 and _twins(*p["notes"]):
            shapes[tuple(sorted(_place(x, dialect) for x in p["notes"]))].append(p)
    folded = {id(p) for group in shapes.values() if len(group) >= TWIN_SERIES_MIN for p in group}
    out = [p for p in found if id(p) not in folded]
    for (a, b), group in shapes.items():
        if len(group) < TWIN_SERIES_MIN:
            continue
        best = group[0]  # `found` is sorted best first
        ex = " and ".join(best["notes"])
        apart = Counter(r for p in group for r in p["reasons"][:1] if r.startswith("the vault files them apart"))
        where = f"{len(group)} notes in {a} are kept twice" if a == b else \
            f"{len(group)} notes in {a} have a twin in {b}"
        out.append({"kind": "duplicate", "title": f"{where} (first: {ex})", "notes": [x for p in group for x in p["notes"]],
                    "pairs": [p["notes"] for p in group], "score": best["score"],
                    "reasons": [f"{len(group)} pairs of one shape: one cause (two imports of the same notes, a "
                                f"copy kept on purpose), decided once",
                                *(f"{r} ({n} of them)" for r, n in apart.most_common(2)),
                                f"closest: {ex}: {'; '.join(best['reasons'][:2])}"],
                    "by": best["by"], "action": None,
                    "suggestion": "decide once for all of them: keep both copies (and link each note to its twin), "
                                  "or delete one side by hand"})
    out.sort(key=lambda p: (-p["score"], p["notes"]))
    return out


def _identical(paths: list[str]) -> dict:
    paths = sorted(paths)
    if len(paths) == 2:
        title = f"{paths[0]} and {paths[1]} have identical content"
    else:
        title = f"{len(paths)} notes have identical content: {', '.join(paths[:4])}{' …' if len(paths) > 4 else ''}"
    return {"kind": "duplicate", "title": title, "notes": paths, "score": 1.0, "reasons": ["identical content"],
            "by": "text", "action": None,
            "suggestion": "keep one and merge or delete the others by hand, or write what each should say"}


def _note_vectors(cfg, conn, pool: list[dict]):
    """(matrix of note vectors, {pool index: row}) in semantic mode, else None."""
    from . import dupes_sem

    if not dupes_sem.active(cfg, conn):
        return None
    import numpy as np

    vecs = dupes_sem.stored(conn, [n["path"] for n in pool])
    have = [i for i, n in enumerate(pool) if n["path"] in vecs]
    if not have:
        return None
    return np.stack([vecs[pool[i]["path"]] for i in have]), {i: r for r, i in enumerate(have)}


def _closest(cfg, pairs: list) -> list:
    from . import dupes_sem
    from ..semantic.vectors import SemanticUnavailable

    if not pairs:
        return []
    try:
        return dupes_sem.closest_many(cfg, pairs)
    except SemanticUnavailable:  # vectors stored but the model cannot load now: the cosine stands alone
        return [None] * len(pairs)


_SEPARATORS_RE = re.compile(r"[\s_\-]+")


_PLURAL_RE = re.compile(r"(?<=[a-z])(?:e?s)$")
# a date in the forms journals are named by (2023-05-28, 2023_05_28, May 28th, 2023, 28.05.2023):
# a link to a day names its journal page (Logseq makes it; a daily note may be written later)
_DATE_RE = re.compile(r"\b(?:1[89]|20)\d\d[-_./]\d\d?[-_./]\d\d?\b|\b\d\d?[-_./]\d\d?[-_./](?:1[89]|20)\d\d\b|"
                      r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d\d?(?:st|nd|rd|th)?,?\s+"
                      r"(?:1[89]|20)\d\d\b", re.I)


def _variant_key(name: str) -> str:
    """A name with case, separators (space, -, _) and plural endings folded away: `3D-printing`,
    `3d printing` and `3D Printing` share it, as do `Database` and `Databases`."""
    return " ".join(_PLURAL_RE.sub("", w) for w in _SEPARATORS_RE.split(T.fold(name)) if w)


def _one_letter_off(a: str, b: str) -> bool:
    """`a` and `b` differ inside the name by one letter added, dropped, changed or two letters swapped (a typo);
    a digit or a sign (`@`, `#`) that differs names another thing (another day, part, kind of page)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if i == 0 or i >= min(len(a), len(b)) - 1:
        return False  # a word's first letter is rarely mistyped, its last is its form (`Templates`, `Templater`)
    if len(a) == len(b):
        if a[i + 1:] == b[i + 1:]:
            return a[i].isalpha() and b[i].isalpha()
        return (a[i + 2:] == b[i + 2:] and a[i] == b[i + 1] and a[i + 1] == b[i]  # two letters swapped
                and a[i].isalpha() and b[i].isalpha())
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[i + 1:] == shorter[i:] and longer[i].isalpha()


def _slip_of(name: str, variants: dict[str, str], by_len: dict[int, list[str]]) -> str | None:
    """The existing name (folded) a dangling `name` (folded) is a slip of: the same words spelled
    another way (`_variant_key`), or, for a name of TYPO_MIN_CHARS or more, one letter off."""
    return _slip(name, variants, by_len)[0]


def _slip(name: str, variants: dict[str, str], by_len: dict[int, list[str]]) -> tuple[str | None, str]:
    """(`_slip_of`'s name, how): "spelling" (case and separators), "plural" (a plural ending too) or
    "typo" (one letter off); (None, "") for no slip."""
    hit = variants.get(_variant_key(name))
    if hit is not None:
        same = _SEPARATORS_RE.sub(" ", name).strip() == _SEPARATORS_RE.sub(" ", hit).strip()
        return hit, "spelling" if same else "plural"
    if len(name) < TYPO_MIN_CHARS:
        return None, ""
    for length in (len(name) - 1, len(name), len(name) + 1):
        for k in by_len.get(length, ()):
            if _one_letter_off(name, k):
                return k, "typo"
    return None, ""


def _prose_notes(conn, words: list[str], skip: set[str], enough: int) -> int:
    """How many notes (up to `enough`; those in `skip` aside) write `words` in their prose: not inside a
    link, an address, a heading or a comment (a name there is a note's name, not the owner's word)."""
    if not words:
        return 0
    try:
        rows = conn.execute("SELECT n.path, fts.body FROM fts JOIN notes n ON n.id = fts.rowid WHERE fts MATCH ? "
                            "AND n.private = 0 LIMIT ?",
                            ('body : "' + " ".join(words) + '"', MENTIONS_READ)).fetchall()
    except sqlite3.OperationalError:
        return 0
    wanted, found = " " + " ".join(words) + " ", 0
    for path, body in rows:
        if path in skip:
            continue
        said = T.WORD_RE.findall(T.fold(_NOT_PROSE_RE.sub(" ", _COMMENT_RE.sub(" ", body or ""))))
        if wanted in " " + " ".join(said) + " ":
            found += 1
            if found >= enough:
                break
    return found


def _a_word_of_its_own(conn, name: str, close: str, how: str, linking: set[str], intended: str) -> bool:
    """Whether a one-word dangling `name` (folded) is a word of the vault's own rather than a slip for the
    note `intended` named `close` (WORD_NOTES)."""
    words = T.WORD_RE.findall(name)
    if len(words) != 1 or how == "spelling":
        return False
    if how == "typo":
        return _prose_notes(conn, words, linking, WORD_NOTES) >= WORD_NOTES
    singular = min((name, close), key=len)
    return _prose_notes(conn, T.WORD_RE.findall(singular), {intended}, 1) < 1


def _nearest(paths: list[str], folder: str) -> str | None:
    """Of the notes `paths` sharing a name, the one whose folders share most names with `folder` (a
    link written with a path the note was moved from); None when that does not single one out."""
    if len(paths) == 1:
        return paths[0]
    want = {T.fold(x) for x in folder.split("/") if x not in ("", ".", "..")}
    score = sorted(((len(want & {T.fold(x) for x in p.split("/")[:-1]}), p) for p in paths), reverse=True)
    return score[0][1] if score[0][0] and score[0][0] > score[1][0] else None


_DOMAIN_RE = re.compile(r"^(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$", re.I)


def _vault_folder(folder: str, vs: "VaultShape", top_folders: set[str]) -> bool:
    """Whether a link's folder part can name a folder of this vault: not in Dendron (its notes are
    named, never filed), not a domain (`link.dendron.so/discord` is a URL without its scheme), and a
    path from the root (`/support/doc/x.md`, copied from a site) only under one of the vault's folders."""
    if vs.dialect == "dendron":
        return False
    parts = [x for x in folder.split("/") if x]
    if not parts or _DOMAIN_RE.match(parts[0]):
        return False
    return not folder.startswith("/") or T.fold(parts[0]) in top_folders


_SCHEME_RE = re.compile(r"[a-z][a-z0-9+.-]*://", re.I)


def _labels(conn, target: str) -> list[str]:
    """The labels the unresolved links to `target` are written with (None or "" for a bare link)."""
    return [d for (d,) in conn.execute("SELECT DISTINCT display FROM links WHERE target IS NULL AND "
                                       "lower(linkpath) = ?", (target.lower(),))]


def _climbs_out(folder: str, from_notes: list[str]) -> bool:
    """Whether a relative link's folder (`../../docs`) climbs above the vault's root from every note
    that writes it: then it names a file outside the vault."""
    ups = 0
    for part in folder.split("/"):
        if part == "..":
            ups += 1
        elif part not in ("", "."):
            break
    return ups > 0 and all(ups > f.count("/") for f in from_notes)


def _one_thing(a: str, b: str) -> bool:
    """Whether two names may name one thing: they share a content word (stopwords aside), are one
    word written apart or together (`Reactjs`, `React.js`), or one is the other's initials (`DRD`,
    `Data Requirement Document`)."""
    wa, wb = T.words(a), T.words(b)
    if {T.stem(w) for w in wa} & {T.stem(w) for w in wb} - {T.stem(w) for w in T.STOPWORDS}:
        return True
    if "".join(wa) == "".join(wb):
        return True
    initials = lambda ws: "".join(w[0] for w in ws if w not in T.STOPWORDS)  # noqa: E731
    return any(len(x) == 1 and len(x[0]) >= 2 and x[0] == initials(y) for x, y in ((wa, wb), (wb, wa)))


def _dangling(conn, by_path: dict, vs: "VaultShape") -> list[dict]:
    """Unresolved links worth a look: those that most likely MEANT an existing note: its name under a
    folder it is not in (a note moved), its alias (links do not follow aliases), a label that names it
    (written label-first), a slip in its name (`_slip_of`). Every other one is how the vault marks a
    note to write (Obsidian, Foam, Dendron) or a page that exists by being referenced (Logseq): no
    proposal. A Logseq link that names a page by its title is that page (Logseq resolves page names)."""
    from ..index.graph import dangling

    titles: dict[str, list[str]] = defaultdict(list)
    for p, n in sorted(by_path.items()):
        if p in vs.templates:
            continue
        for t in {T.fold(n["title"]), T.fold(n["display_title"])}:
            titles[t].append(p)
    by_len: dict[int, list[str]] = defaultdict(list)
    variants: dict[str, str] = {}
    for k in titles:
        variants.setdefault(_variant_key(k), k)
    # a slip of one letter is made typing the name a link is written with: the file's name, not a
    # heading or `title:` shown instead (`writing` is no slip for waiting0324.md, shown as `Waiting`)
    for k in {T.fold(n["title"]) for p, n in by_path.items() if p not in vs.templates}:
        by_len[len(k)].append(k)
    files = {T.fold(f.rsplit("/", 1)[-1]): f for (f,) in conn.execute("SELECT path FROM files WHERE is_note = 0")}
    file_keys: dict[int, list[str]] = defaultdict(list)
    file_variants: dict[str, str] = {}
    for k in files:
        file_keys[len(k)].append(k)
        file_variants.setdefault(_variant_key(k), k)
    top_folders = {T.fold(p.split("/", 1)[0]) for p in by_path if "/" in p}
    # a file linked without its extension (`[[Bases/Tasks]]` for Bases/Tasks.base): the app opens a
    # note by its name alone, any other file only by its full name
    stems: dict[str, list[str]] = defaultdict(list)
    for f in files.values():
        if "." in f.rsplit("/", 1)[-1]:
            stem = T.fold(f.rsplit(".", 1)[0])
            stems[stem].append(f)
            stems[stem.rsplit("/", 1)[-1]].append(f)
    # the names written alike in VOCABULARY_NOTES notes or more
    vocabulary = {T.fold(lp) for lp, c in conn.execute(
        "SELECT linkpath, count(DISTINCT src) FROM links WHERE target IS NULL GROUP BY lower(linkpath)")
        if c >= VOCABULARY_NOTES}
    # Dendron: every prefix of a note's dotted name is a node of its tree (a stub when no file holds
    # it): `[[dendron]]` beside `dendron.learning.md` names that node, not a note to find elsewhere
    stubs = set()
    if vs.dialect == "dendron":
        for p in by_path:
            parts = T.fold(p.rsplit("/", 1)[-1][:-3]).split(".")
            stubs.update(".".join(parts[:i]) for i in range(1, len(parts)))
    out = []
    grouped: dict[tuple, list[dict]] = defaultdict(list)
    for d in dangling(conn):
        target = d["target"]
        from_notes = [f for f in d["from_notes"] if f not in vs.templates]
        if not from_notes:
            continue  # a template's placeholder link (`[[{{date}}]]`) is filled in where it is used
        if _SCHEME_RE.match(target):
            # a web address between `[[ ]]` (a citation pasted into a wikilink): the app opens it as a
            # note to create; what it meant is the page on the web, never a note of the vault. One
            # written with a label (`[[schema:isSimilarTo|http://…]]`) is a notation of the owner's
            if any((disp or "").strip() for disp in _labels(conn, target)):
                continue
            grouped[("url",)].append({
                "kind": "dangling", "title": f"[[{target}]] ({src}) is a web address written as a wikilink",
                "notes": from_notes, "target": target, "intended": target, "action": None,
                "reasons": ["the app opens `[[…]]` as a note of the vault, so the address opens an empty new note"],
                "suggestion": f"write it as a web link by hand: <{target}>"})
            continue
        folder, _, name = target.replace("\\", "/").rpartition("/")
        name = name[:-3] if name.lower().endswith(".md") else name
        if folder and _climbs_out(folder, from_notes):
            continue  # a relative path above the vault's root (`../../README`): a file of the repository around it
        folded = T.fold(name)
        ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        src = f"{d['count']}× from {', '.join(from_notes[:3])}{' …' if len(from_notes) > 3 else ''}"
        if ext and vs.dialect != "dendron" and " " not in ext and len(ext) <= 5 and not ext.isdigit():
            close = _slip_of(folded, file_variants, file_keys)  # an attachment: only a slip in its name is news
            if close:
                out.append({"kind": "dangling", "title": f"[[{target}]] ({src}) finds no file", "notes": from_notes,
                            "target": target, "intended": files[close], "action": None,
                            "reasons": [f"one letter off the file {files[close]}"],
                            "suggestion": f"point the link at {files[close]} by hand"})
            continue
        if vs.dialect == "logseq" and (folded in titles or T.fold(name.replace("___", "/")) in titles):
            continue  # Logseq finds the page by its name
        if _DATE_RE.search(name):
            continue  # a day's journal, written or not
        if folded in stubs:
            continue  # a Dendron hierarchy node without a file of its own
        intended, why, fix, mdmd, leaf = None, "", None, False, False
        if folder and not _vault_folder(folder, vs, top_folders):
            continue
        attached = sorted(set(stems.get(T.fold(target.replace("\\", "/").lstrip("/")), ())))
        # (a property's link names a note, a category, a person: `categories: [[Games]]` beside
        # Games.base is a category note to write, which the base's `link("Games")` filter looks for)
        if vs.dialect != "dendron" and len(attached) == 1 and conn.execute(
                "SELECT 1 FROM links WHERE target IS NULL AND lower(linkpath) = ? AND kind != 'property' LIMIT 1",
                (target.lower(),)).fetchone():
            f = attached[0]
            grouped[("ext",)].append({
                "kind": "dangling", "title": f"[[{target}]] ({src}) finds no note", "notes": from_notes,
                "target": target, "intended": f, "action": None,
                "reasons": [f"{f} is there: a file other than a note is linked by its full name"],
                "suggestion": f"write the link as [[{f.rsplit('/', 1)[-1] if not folder else f}]] by hand"})
            continue
        if folded in titles and folder:
            intended = _nearest(titles[folded], folder)
            why = f"no `{folder}/` holds a note `{name}`; one is at {intended} (moved?)"
        if not intended:
            rows = [r[0] for r in conn.execute(
                "SELECT a.path FROM aliases a JOIN notes n ON n.path = a.path WHERE a.alias_lc = ? "
                "AND n.private = 0 ORDER BY a.path", (folded,))]
            if len(rows) == 1 and rows[0] in by_path:
                intended = rows[0]
                why = f"`{name}` is an alias of {intended}, and links do not follow aliases"
                if T.fold(intended.rsplit("/", 1)[-1]) == folded + ".md.md":
                    fix, mdmd = f"rename {intended} to {name}.md (its file name ends in .md twice)", True
                else:  # the link is what is wrong: a redirect note would be a second note of one thing
                    fix = (f"point the link at [[{M.link_name(conn, intended)}|{name}]] by hand (the app does not "
                           "find a note by its alias)")
        if not intended and vs.dialect != "dendron":
            # a label that names a note: what a path gone stale meant, or a link written label-first
            # (then the label is the note's name as written, case and all: a label is display text)
            shown = _labels(conn, target)
            if not folder and any(not (d or "").strip() for d in shown):
                shown = []  # the name is also linked bare: it names a note of its own, not the label's
            for disp in shown:
                hits = titles.get(T.fold(disp.strip())) if disp else None
                # (written label-first, both halves name one thing: `[[the SQLite decision|Use SQLite …]]`;
                # a label with no word of its target's is what the link says, not what it meant)
                if hits and len(hits) == 1 and (folder or disp.strip() in (by_path[hits[0]]["title"],
                                                                           by_path[hits[0]]["display_title"])
                                                and _one_thing(name, disp)):
                    intended, why = hits[0], f"its label `{disp.strip()}` is the name of {hits[0]}"
                    break
        if not intended and folded not in vocabulary:
            close, how = _slip(folded, variants, by_len)
            if close and len(titles[close]) == 1 and not _a_word_of_its_own(
                    conn, folded, close, how, set(d["from_notes"]), titles[close][0]):
                intended = titles[close][0]
                why = f"`{name}` is {intended} spelled another way" if how != "typo" else \
                    f"`{name}` is one letter off the name of {intended}" + (
                        ", and not a word the vault's notes use" if len(T.WORD_RE.findall(folded)) == 1 else "")
                if vs.dialect == "dendron" and T.fold(intended.rsplit("/", 1)[-1][:-3]).rsplit(".", 1)[-1] == folded:
                    leaf = True
                    why = f"`{name}` is the last part of the name of {intended}, and Dendron finds a note by its whole name"
        if not intended or intended not in by_path or intended in from_notes:
            continue  # (a link is never pointed at the note that holds it)
        link = M.link_name(conn, intended)
        action = None
        # (never in Dendron: a note named `x` beside `a.x` is a new hierarchy of its own, a second note of one thing)
        stub = None if fix or folder or vs.dialect == "dendron" else _stub_path(target, intended)
        if stub:
            action = {"op": "create", "path": stub, "text": _stub_text(intended, by_path[intended])}
        p = {"kind": "dangling", "title": f"[[{target}]] ({src}) has no note", "notes": from_notes,
             "target": target, "intended": intended, "reasons": [why], "action": action,
             "suggestion": fix or f"point the link at [[{link}]] by hand"
                                  + (f", or create {stub} pointing to it" if stub else "")}
        # one cause, one proposal: notes whose file name ends in .md twice; links into a folder that is gone
        # ... and links that name notes by their aliases (one habit of the owner's, not one slip each)
        key = ("md.md",) if mdmd else ("moved", T.fold(folder)) if why.startswith("no `") else \
            ("alias",) if fix else ("leaf",) if leaf else None
        if leaf:
            p["suggestion"] = f"write the link with the note's whole name: [[{target}|{link}]]"
        if key is None:
            out.append(p)
        else:
            grouped[key].append(p)
    for key, group in grouped.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        notes = sorted({n for p in group for n in p["notes"]})
        names = ", ".join(f"[[{p['target']}]]" for p in group[:3]) + (" …" if len(group) > 3 else "")
        if key[0] == "alias":
            title = f"{len(group)} links name notes by an alias, which links do not follow: {names}"
            fix = "point each at its note with the alias as its label: " + ", ".join(
                f"[[{M.link_name(conn, p['intended'])}|{p['target']}]]" for p in group[:3]) + \
                (" …" if len(group) > 3 else "")
        elif key[0] == "leaf":
            title = (f"{len(group)} links name a note by the last part of its dotted name, and Dendron finds a note "
                     f"only by its whole name: {names}")
            fix = "write each with its whole name, the old one as its label: " + ", ".join(
                f"[[{p['target']}|{M.link_name(conn, p['intended'])}]]" for p in group[:3]) + \
                (" …" if len(group) > 3 else "")
        elif key[0] == "url":
            title = f"{len(group)} web addresses are written as wikilinks, so each opens a new empty note: {names}"
            fix = "write each as a web link by hand (`<https://…>` or `[label](https://…)`)"
        elif key[0] == "ext":
            title = f"{len(group)} links name a file without its extension, so they open no file: {names}"
            fix = "add the extension: " + ", ".join(f"[[{p['intended']}]]" for p in group[:3]) + \
                  (" …" if len(group) > 3 else "")
        elif key[0] == "md.md":
            title = (f"{len(group)} notes have a file name ending in .md twice, so links by their name find no "
                     f"note: {names}")
            fix = "rename " + ", ".join(p["intended"] for p in group[:3]) + (" …" if len(group) > 3 else "") + \
                  " to end in a single .md"
        else:
            where = sorted({p["intended"].rsplit("/", 1)[0] if "/" in p["intended"] else "(the vault root)"
                            for p in group})
            title = (f"{len(group)} links point into `{group[0]['target'].rpartition('/')[0]}/`, which holds none of "
                     f"them: {names}")
            fix = f"point them at the notes of that name in {', '.join(where[:3])}{' …' if len(where) > 3 else ''}"
        out.append({"kind": "dangling", "title": title, "notes": notes, "target": group[0]["target"],
                    "targets": [p["target"] for p in group], "intended": group[0]["intended"],
                    "reasons": [p["reasons"][0] for p in group[:3]], "action": None, "suggestion": fix})
    return out


def _stub_path(target: str, intended: str) -> str | None:
    """Where a stub for the dangling `target` would go, or None when no note should: a path out of
    the vault or into a dot-folder, or a link with a colon in it (a URI such as Dendron's
    `dendron://vault/note`: the fix is the link; a file name with ':' is no portable one)."""
    parts = [s for s in target.replace("\\", "/").split("/") if s]
    if not parts or ":" in target or any(s in (".", "..") or s.startswith(".") for s in parts):
        return None
    try:
        name = M.safe_filename(parts[-1][:-3] if parts[-1].lower().endswith(".md") else parts[-1])
    except MemoryPluginError:
        return None
    folder = "/".join(parts[:-1]) if len(parts) > 1 else intended.rsplit("/", 1)[0] if "/" in intended else ""
    return f"{folder}/{name}.md" if folder else f"{name}.md"


def _stub_text(intended: str, note: dict) -> str:
    link = note["title"]
    return (f"---\nsummary: {propedit.render('Points to ' + note['display_title'] + '.')}\n"
            f"redirect: {propedit.render(f'[[{link}]]')}\n---\nSee [[{link}]].\n")


def _stale(cfg, conn, notes, today, succ: dict) -> list[dict]:
    out = []
    for n in notes:
        # memories, or notes that carry a confidence; never one already superseded or retracted, nor
        # a convention (a rule its owner set does not go stale with time: L.NO_DECAY_TYPES)
        if n["type"] not in MEMORY_KINDS and not L.has_confidence(n["props"]):
            continue
        if not L.decays(n["type"]):
            continue
        if L.historical(n["status"], n["path"] in succ):
            continue
        c = L.confidence(cfg, n["props"], n["created"], today, type_=n["type"])
        if c["effective"] < cfg.prune_threshold:
            out.append({"kind": "stale", "title": f"{n['path']}: confidence {c}", "notes": [n["path"]],
                        "score": c["effective"],
                        "action": {"op": "set_props", "path": n["path"], "changes": [["status", "stale"]]},
                        "suggestion": f"mark it stale, or `memory-plugin validate '{n['path']}'` if it still holds"})
    out.sort(key=lambda p: (p["score"], p["notes"]))
    return out


def _code_changed(cfg, conn, by_path, succ: dict, repo: str) -> list[dict]:
    """Notes citing code of `repo` that changed since they were written (their fingerprint, the quote
    of a permalink, or the code as the plugin first saw it: index/code.py), or that is gone; never a
    note already superseded or retracted, nor one of another project. Re-validating is for a person:
    read the code, then validate (which records the fingerprints again) or update the note."""
    from ..index import code
    from ..index.project import detect_in_index

    project = detect_in_index(conn).name
    out = []
    paths = sorted({p for (p,) in conn.execute("SELECT DISTINCT path FROM anchors WHERE file IS NOT NULL")})
    for path in paths:
        n = by_path.get(path)
        if n is None or L.historical(n["status"], path in succ):
            continue
        info = code.note_code(conn, str(cfg.cache_dir), repo, path, project)
        if info["state"] == "changed":
            where = ", ".join(code.changed_where(info))
            out.append({"kind": "code-changed", "title": f"{path} cites {where}, which changed since the note "
                        "was written", "notes": [path], "action": None, "cites": where,
                        "suggestion": f"check it, then `memory-plugin validate '{path}'`"})
        elif info["state"] == "missing":
            gone = ", ".join(a["cite"] for a in info["anchors"] if a["state"] == "missing")
            out.append({"kind": "code-changed", "title": f"{path} cites {gone}, which is no longer in the "
                        "repository", "notes": [path], "action": None, "cites": gone,
                        "suggestion": f"find where that code went and update the note's citation, then "
                                      f"`memory-plugin validate '{path}'` (or `retract` it if it no longer holds)"})
    return out


def _contradictions(conn, by_path, succ: dict) -> list[dict]:
    out = []
    for src, target in conn.execute("SELECT DISTINCT src, target FROM links WHERE kind = 'property' AND "
                                    "prop = 'contradicts' AND target IS NOT NULL ORDER BY src, target"):
        a, b = by_path.get(src), by_path.get(target)
        if not a or not b:
            continue
        if L.historical(a["status"], src in succ) or L.historical(b["status"], target in succ):
            continue
        out.append({"kind": "contradiction", "title": f"{src} contradicts {target}; both are current",
                    "notes": [src, target], "action": None,
                    "suggestion": f"decide which holds: `memory-plugin supersede '{target}' '{src}'` (or the reverse)"
                                  " or `retract` one"})
    return out


def _briefed(cfg, conn) -> set[str]:
    """Paths the SessionStart brief can show with a summary: conventions, hubs, project notes."""
    from ..outputs import brief as B
    from ..index import graph as G
    from ..index import project as P

    shown = {c["path"] for c in G.conventions(conn)} | {h["path"] for h in G.hubs(conn, cfg.hub_count)}
    shown |= {p for (p,) in conn.execute("SELECT path FROM notes WHERE hub = 1")}
    for notes in B._projects_notes(conn, P.catalog(conn)):
        shown |= {n["path"] for n in notes}
    return shown


def _has_summary(props: dict) -> bool:
    """Whether a note carries a summary property with text (vault.notes.SUMMARY_KEYS)."""
    from ..vault.notes import SUMMARY_KEYS

    return any(isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip()
               for v in (props.get(k) for k in SUMMARY_KEYS))


_GATHERING_LINE_RE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])?[ \t]*(?:!?\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)|[,;|]|[ \t])*$")
_HEADING_LINE_RE = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")


def _only_gathers(body: str) -> bool:
    """A note whose lines are only embeds, links and list items of links (headings aside): a category
    or folder page that shows what it gathers (`![[People.base]]`, a list of `[[...]]`), whose title
    says what it is."""
    lines = [ln for ln in body.split("\n") if ln.strip() and not _HEADING_LINE_RE.match(ln)]
    return bool(lines) and all(_GATHERING_LINE_RE.match(ln) for ln in lines)


def _missing_summaries(notes, cfg, conn, vs: VaultShape | None = None) -> list[dict]:
    """Notes the brief shows that have neither a summary property nor a usable first paragraph, in a
    vault whose notes carry summary properties, and among its notes of the same kind (category, else
    folder) (SUMMARY_NORM), in the property key the vault uses most; never the app's machinery
    (VaultShape.machinery), a page that only gathers others (`_only_gathers`), a note without any
    text (the `empty` kind's), nor one with too little prose to condense (SUMMARY_WORTHY)."""
    if not notes:
        return []
    if sum(1 for n in notes if _has_summary(n["props"])) < SUMMARY_NORM * len(notes):
        return []  # the vault does not write summaries: a note without one is as its owner writes them
    # ... nor notes of a kind that does not: clippings carry the clipper's `description:`, the
    # owner's own notes none; a note's kind is its category (`categories: [[Projects]]`), else its folder
    def kind(n: dict) -> tuple:
        cats = _category(n)
        return ("c", *sorted(cats)) if cats else ("f", n["path"].rpartition("/")[0])
    kinds: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    keys: Counter = Counter()
    for n in notes:
        k = kinds[kind(n)]
        k[0] += 1
        if _has_summary(n["props"]):
            k[1] += 1
            keys.update(key for key in n["props"] if key.lower() in T.SUMMARY_KEYS and str(n["props"][key]).strip())
    key = keys.most_common(1)[0][0] if keys else "summary"
    shown = _briefed(cfg, conn)
    out = []
    for n in sorted(notes, key=lambda n: n["path"]):
        if n["path"] not in shown or n["type"] == "journal" or "summary" in n["props"] \
                or "description" in n["props"] or str(n["props"].get("desc") or "").strip():
            continue  # Dendron keeps its summary in `desc`
        if vs is not None and vs.machinery(n["path"]):
            continue
        body = n["body"] or ""
        if not T.words(body) or _only_gathers(body):
            continue
        derived = n["summary"] or ""
        if len(T.words(derived)) >= MIN_SUMMARY_WORDS:
            continue  # its first paragraph already serves as its summary
        total, summed = kinds[kind(n)]
        if summed < SUMMARY_NORM * total:
            continue
        if len(T.words(_NOT_PROSE_RE.sub(" ", _COMMENT_RE.sub(" ", mask_non_content(body))))) < SUMMARY_WORTHY:
            continue  # too little prose to condense: its title and what it shows say what it is
        out.append({"kind": "missing-summary", "title": f"{n['path']} has no summary and no first paragraph "
                                                       "to stand for one", "notes": [n["path"]], "action": None,
                    "suggestion": f"write a one-line `{key}:` property, as the vault's notes of its kind do (the brief "
                                  "shows it)"})
    return out


def _hub_folder(cfg, conn) -> str:
    """Where the vault keeps its hubs: the configured hub folder, else the folder most authored hubs
    live in, else Maps/ when it exists, else the vault root."""
    folder = next((f.strip("/") for f in cfg.hub_folders if f.strip("/")), None)
    if folder is not None:
        return folder
    counts = Counter(f for (f,) in conn.execute("SELECT folder FROM notes WHERE hub = 1 AND private = 0 "
                                                "AND type != 'journal'"))
    if counts:
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return "Maps" if (cfg.vault / "Maps").is_dir() else ""


def _project_key(n: dict) -> str:
    from ..index.project import PROJECT_FOLDERS

    if n.get("project"):
        return T.fold(n["project"])
    parts = (n.get("folder") or "").split("/")
    for i, part in enumerate(parts[:-1]):
        if part.lower() in PROJECT_FOLDERS:
            return T.fold(parts[i + 1])
    return ""


def _is_folder_note(path: str) -> bool:
    """`F/F.md`, `F/index.md`, `F/README.md`, `F/_README.md` ...: the note a folder is entered by."""
    folder, _, name = path.rpartition("/")
    stem = name[:-3].lower() if name.lower().endswith(".md") else name.lower()
    return bool(folder) and (stem in FOLDER_NOTE_NAMES or stem == folder.rsplit("/", 1)[-1].lower())


def _folder_note(folder: str, paths_lc: set[str]) -> str | None:
    """The folder note of `folder` (`F/F.md`, `F.md` beside it, `F/index.md`, `F/README.md` ...) if any."""
    name = folder.rsplit("/", 1)[-1]
    for cand in (f"{folder}/{name}.md", f"{folder}.md", *(f"{folder}/{n}.md" for n in FOLDER_NOTE_NAMES)):
        if cand.lower() in paths_lc:
            return cand
    return None


def _add_hierarchy(ng, vs: VaultShape) -> None:
    """Dendron's tree into the note graph: a note and its nearest existing ancestor are linked."""
    for child, up in vs.parent.items():
        s, t = ng.pos.get(child), ng.pos.get(up) if up else None
        if s is None or t is None or s == t or t in ng.adj[s]:
            continue
        if ng.journal[s] or ng.journal[t] or ng.private[s] or ng.private[t]:
            continue
        ng.adj[s].append(t)
        ng.adj[t].append(s)
        ng.events.append(s)
        ng.events.append(t)


def _gathered(members: list[str], vs: VaultShape, paths_lc: set[str], out_links, in_links, ng,
              categorised: set[str] = frozenset()) -> str | None:
    """Why the group already has a way in, or None: a note that links most of them (an authored hub,
    an index) or that most of them link to (a category note, `categories: [[Books]]`, a parent), most
    of them in the vault's category system (`categorised`: category notes and the notes a category
    property files under one, whatever category), a shared Dendron hierarchy root, or a folder note of
    the folder most of them are in."""
    group = set(members)
    need = max(2, HUB_COVERS * len(group))
    pos = ng.pos
    for m in members:  # a note joined to most of them by links either way or the hierarchy
        if m in pos and len({ng.ids[j] for j in ng.adj[pos[m]]} & group) >= max(3, need):
            return f"{m} is linked with most of them"
    for src, links in out_links.items():
        if len(links & group) >= need:
            return f"{src} links {len(links & group)} of them"
    for target, srcs in in_links.items():
        if len(srcs & group) >= need:
            return f"{len(srcs & group)} of them link to {target}"
    filed = sum(m in categorised for m in members)
    if filed >= need:  # the category notes (Categories/People, /Albums) are the ways in, each its own
        return f"{filed} of them are category notes or filed under one by a category property"
    if vs.dialect == "dendron":
        roots = Counter(r for r in (vs.root(m) for m in members) if r)
        if roots and roots.most_common(1)[0][1] >= need:
            return f"they are under the `{roots.most_common(1)[0][0]}` hierarchy"
    folders: Counter = Counter()
    for m in members:
        parts = m.split("/")[:-1]
        folders.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    for f, c in folders.most_common():
        if c < need:
            break
        note = _folder_note(f, paths_lc)
        if note:
            return f"{c} of them are in {f}/, whose folder note is {note}"
    return None


def _no_hub(cfg, conn, by_path, today, vs: VaultShape) -> list[dict]:
    """Groups of notes that link among themselves with no note to enter them by (communities of the
    link graph, Dendron's hierarchy counted as links), when none of them is a way into the vault
    already (graph.entry_points: what a home note lists, a folder note, a category ...), nothing the
    vault already has gathers them (`_gathered`) and no note is named like the hub would be."""
    from ..outputs import graphdata

    try:
        ng = graphdata.load(conn)
        _add_hierarchy(ng, vs)
        comms = graphdata.communities(ng)
    except Exception:  # a graph that networkx cannot partition yields no proposal, not an error
        return []
    folder = _hub_folder(cfg, conn)
    out_links: dict[str, set[str]] = defaultdict(set)
    in_links: dict[str, set[str]] = defaultdict(set)
    for src, target in conn.execute("SELECT src, target FROM links WHERE target IS NOT NULL AND src != target"):
        out_links[src].add(target)
        in_links[target].add(src)
    paths_lc = {p.lower() for (p,) in conn.execute("SELECT path FROM files")}
    categorised = {x for r in conn.execute(
        "SELECT src, target FROM links WHERE kind = 'property' AND target IS NOT NULL AND lower(prop) IN "
        "('categories', 'category')") for x in r}
    names = {T.fold(x) for r in conn.execute("SELECT title, display_title FROM notes") for x in r if x}
    names |= {a for (a,) in conn.execute("SELECT alias_lc FROM aliases")}
    from ..index.graph import entry_points
    entries = {e["path"] for e in entry_points(conn)}  # the vault's own ways in (what its home lists ...)
    out, taken = [], set()
    for cm in comms:
        if cm["has_hub"] or entries & set(cm["members"]):
            continue
        # a hub stays within one project: a community spanning projects gives one proposal per project
        groups: dict[str, list[str]] = defaultdict(list)
        for m in cm["members"]:
            if m in by_path and m not in vs.journals:
                groups[_project_key(by_path[m])].append(m)
        for _key, members in sorted(groups.items()):
            if len(members) < MIN_HUB_GROUP or _gathered(members, vs, paths_lc, out_links, in_links, ng, categorised):
                continue
            p = _hub_proposal(conn, cfg, by_path, members, folder, today, taken, names, ng)
            if p:
                taken.add(T.fold(p["action"]["path"]))
                out.append(p)
    return out


def _group_name(conn, members: list[str], vault_notes: int) -> tuple[str, str] | None:
    """What the vault itself calls a group: the folder most of them are in, when that folder has no
    folder note and is not one holding most of the vault (Logseq's `pages/` says nothing of a topic).
    (name, why) or None: a group the vault has no name for is a cut of the link graph, not a topic its
    owner would index; a tag is no such name, as the tag already gathers its notes (Obsidian's tag
    pane, Foam's tag explorer, Logseq's tag page)."""
    folders: Counter = Counter(m.rsplit("/", 1)[0] for m in members if "/" in m)
    if folders:
        f, c = sorted(folders.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        size = conn.execute("SELECT count(*) FROM notes WHERE folder = ?", (f,)).fetchone()[0]
        if c * 2 >= len(members) and size * 2 < vault_notes:
            return f.rsplit("/", 1)[-1], f"{c} of them are in {f}/"
    return None


def _hub_proposal(conn, cfg, by_path, members, folder, today, taken: set[str], names: set[str], ng) -> dict | None:
    named = _group_name(conn, members, len(by_path))
    if named is None:
        return None
    group_name, why = named
    if T.fold(group_name) in names:
        return None  # a note of that name exists: it is the group's hub already, or the one to make it
    try:
        name = M.safe_filename(f"{group_name} MOC")
    except MemoryPluginError:
        return None
    path = f"{folder}/{name}.md" if folder else f"{name}.md"
    # a note of that name, or another proposal of it, would make this one a duplicate hub
    if T.fold(name) in names or M.same_name(conn, name) or (cfg.vault / path).exists() or T.fold(path) in taken:
        return None
    group = set(members)
    pos = ng.pos
    ids = {pos[m] for m in members if m in pos}
    edges = sum(1 for i in ids for j in ng.adj[i] if j in ids) // 2
    most = max((len({ng.ids[j] for j in ng.adj[pos[m]]} & group) for m in members if m in pos), default=0)
    shown = members[:15]
    lines = ["---", "type: hub", f"summary: {propedit.render(f'Hub for {len(members)} notes on {group_name}.')}",
             f"created: {today.isoformat()}", "---", f"# {name}", ""]
    lines += [f"- [[{M.link_name(conn, m)}]]" for m in shown]
    return {"kind": "no-hub", "title": f"{len(members)} linked notes on {group_name} have no hub note",
            "notes": shown, "score": len(members),
            "reasons": [why, f"{edges} links among them; no note links to or from more than {most} of them",
                        "no folder note, category note, hierarchy root or note named like them gathers them"],
            "action": {"op": "create", "path": path, "text": "\n".join(lines) + "\n"},
            "suggestion": f"create {path} linking its members"}


def _superseded_linked(cfg, conn, by_path, successors: dict) -> list[dict]:
    out = []
    for old, n in sorted(by_path.items()):
        if L.shown_status(n["status"], old in successors) != "superseded":
            continue
        succ = set(successors.get(old, ()))
        current = []
        for src, line, prop, kind in conn.execute("SELECT src, line, prop, kind FROM links WHERE target = ? AND src != ?",
                                                  (old, old)):
            s = by_path.get(src)
            if not s or src in succ or s["type"] == "journal" or L.historical(s["status"], src in successors):
                continue
            if kind == "property" and prop in (*L.SUPERSESSION, "contradicts"):
                continue
            text = _line(cfg, src, line)
            if text is not None and _PAST_RE.search(text):
                continue
            current.append(src)
        if current:
            succ_s = ", ".join(sorted(f"[[{by_path[s]['title']}]]" for s in succ if s in by_path)) or "its successor"
            out.append({"kind": "superseded-linked", "title": f"{old} is superseded but linked as current from "
                                                              f"{', '.join(sorted(set(current))[:5])}",
                        "notes": [old, *sorted(set(current))], "action": None,
                        "suggestion": f"point those links to {succ_s}, or mark them (superseded)"})
    return out


def _line(cfg, rel: str, line: int | None) -> str | None:
    if not line:
        return None
    try:
        with open(os.path.join(cfg.vault, rel), encoding="utf-8-sig", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == line:
                    return text
    except OSError:
        return None
    return None


# ---------------------------------------------------------------- rendering and applying

def render(props: list[dict], per_kind: int) -> str:
    if not props:
        return "Nothing to reorganize: no duplicates, orphans, dangling links or stale memories.\n"
    out = []
    for kind, title in KIND_TITLES.items():
        group = [p for p in props if p["kind"] == kind]
        if not group:
            continue
        safe = sum(1 for p in group if p["action"])
        out.append(f"## {title} ({len(group)}{f', {safe} appliable' if safe else ''})")
        for p in group[:per_kind]:
            mark = "apply" if p["action"] else "by hand"
            reasons = f" [{'; '.join(p['reasons'])}]" if p.get("reasons") else ""
            out.append(f"[{p['id']}] {p['title']}{reasons}")
            out.append(f"     {mark}: {p['suggestion']}")
        if len(group) > per_kind:
            out.append(f"     … {len(group) - per_kind} more (--limit N or --json to see them)")
        out.append("")
    out.append("Apply with: memory-plugin reorganize --apply ID [ID ...] (add --dry-run to see the diff first)")
    return "\n".join(out) + "\n"


def parse_ids(raw: tuple[str, ...] | list[str], props: list[dict]) -> list[int]:
    ids = []
    for chunk in raw:
        for part in str(chunk).replace(",", " ").split():
            if not part.isdigit():
                raise ReorganizeError(f"proposal id `{part}` is not a number: use the numbers `reorganize` lists")
            ids.append(int(part))
    known = {p["id"] for p in props}
    bad = [i for i in ids if i not in known]
    if bad:
        raise ReorganizeError(f"no proposal {', '.join(map(str, bad))} (there are {len(props)}): "
                              "run `memory-plugin reorganize` again to see the current numbers")
    return list(dict.fromkeys(ids))


def apply(cfg: Config, props: list[dict], ids: list[int], dry_run: bool = False,
          echo: Callable[[str], Any] | None = None) -> list[dict]:
    """Apply the chosen proposals' safe actions, printing each change before it is made."""
    say = echo or (lambda s: None)
    by_id = {p["id"]: p for p in props}
    results = []
    for i in ids:
        p = by_id[i]
        act = p["action"]
        if not act:
            say(f"[{i}] skipped: no safe automatic change; {p['suggestion']}")
            results.append({"id": i, "kind": p["kind"], "applied": False, "reason": "needs a person"})
            continue
        if act["op"] == "create":
            full = M.inside_vault(cfg, act["path"])
            say(f"[{i}] {'would create' if dry_run else 'creating'} {act['path']}")
            say(propedit.diff(act["path"], "", act["text"]).rstrip("\n"))
            if not dry_run:
                with M.vault_lock(cfg):
                    if full.exists():
                        say(f"[{i}] skipped: {act['path']} appeared meanwhile")
                        results.append({"id": i, "kind": p["kind"], "applied": False, "reason": "exists"})
                        continue
                    atomic_write(full, act["text"])
                M._reindex(cfg, [act["path"]])  # outside the vault lock
            results.append({"id": i, "kind": p["kind"], "applied": not dry_run, "path": act["path"]})
        elif act["op"] == "set_props":
            changes = [(k, v) for k, v in act["changes"]]
            say(f"[{i}] {'would set' if dry_run else 'setting'} " + ", ".join(f"{k}: {propedit.render(v)}" for k, v in changes)
                + f" in {act['path']}")
            res = M.edit_notes(cfg, {act["path"]: lambda _p, c=changes: c}, dry_run=dry_run)
            say(res[0]["diff"].rstrip("\n"))
            results.append({"id": i, "kind": p["kind"], "applied": not dry_run, "path": act["path"],
                            "diff": res[0]["diff"]})
    return results
