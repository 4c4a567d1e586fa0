"""What a note is called in the app its vault is written for. The dialect is told by the vault's own
files (core.config.detect_dialect) and reaches the parser as cfg.values["dialect"]:

- obsidian (a `.obsidian/` folder): the file name. An H1 is body text and a `title:` property is a
  property (kept searchable as an alias).
- plain (no app's marker): the `title:` property the note declares (what every static-site generator
  shows); else the file name, as the note apps that keep a folder of notes show it (Obsidian, Foam),
  when it is written as a name ("Base Home", "TechLearning", "肠胃"): an H1 there is body text (a
  pasted heading); a slug file name (`kebab-case`, `snake_case`, one lowercase word, README/index),
  which a site or a wiki does not show, gives way to the H1 that opens the note (what the site or a
  markdown viewer shows as its title), unless the vault names its notes as a note app does
  (names_files: its notes link to each other by name, `[[tomelliot]]`, and name their files as
  titles, not slugs): there a slug-like name is a name too (a handle, a one-word title), and the
  file name is the title, as in Obsidian (obsidian-hub laid out without its `.obsidian/` folder,
  `tomelliot` under `# Tom Elliot`). An H1 further down is a section.
- foam: the `title:` property, else the first H1 of the note, else the file name (Foam's title
  parser: foam-vscode's markdown-parser.ts, titlePlugin).
- dendron: the `title:` property Dendron writes in every note; without one, the last segment of the
  dot hierarchy (`dendron.topic.lookup` is "Lookup"), as Dendron makes a new note's title.
- logseq: the page's `title::` property (or a YAML `title:`), else the page name decoded from the file
  name (`a___b.md` is page `a/b`, `%3F` is `?`); a journal (`journals/2024_01_02.md`) is its date,
  shown in Logseq's default journal title format ("Jan 2nd, 2024").

In every dialect an H1 that opens the body is the name the note gives itself: searchable as an
alias, never the title.
"""
from __future__ import annotations

import os
import re

# An H1 on the body's first line: the name the note gives itself, kept searchable as an alias
_OPENING_H1_RE = re.compile(r"\n*+[ \t]*+#[ \t]++([^\n]++)")

OBSIDIAN, DENDRON, LOGSEQ, FOAM, PLAIN = "obsidian", "dendron", "logseq", "foam", "plain"
# a file name written as a slug, not a name: words joined by `-`/`_` with no space (`vector-space`,
# `DeepSeek-R1-Zero`), one lowercase word (`vector`), or a folder's README/index
_SLUG_NAMES = frozenset({"readme", "index"})
_FIRST_H1_RE = re.compile(r"^[ \t]{0,3}#[ \t]++([^\n]++)", re.M)

# Logseq page properties: `key:: value` lines at the top of the file, before its first block
_LOGSEQ_PROP_RE = re.compile(r"([A-Za-z][\w-]*)::[ \t]*(.*)")
_JOURNAL_RE = re.compile(r"(\d{4})[_-](\d{2})[_-](\d{2})")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def logseq_page_lines(body: str, limit: int = 50) -> list[tuple[str, str]]:
    """The page properties of a Logseq page, (key as written, value) in order: the `key:: value`
    lines that open it, before its first block, or its first block when that block holds nothing
    but properties (`- key:: value` and the block's further property lines). Properties of any
    other block (`id::`, `collapsed::`, a block's own fields) are the block's, not the page's."""
    out: list[tuple[str, str]] = []
    for i, line in enumerate(body[:PAGE_PROPS_CHARS].lstrip("\n").split("\n", limit)[:limit]):
        text = line.strip()
        if i == 0 and text.startswith("- "):
            text = text[2:].lstrip()
        elif i and line[:1] not in ("", " ", "\t") and out and body.lstrip("\n").startswith("- "):
            break  # the next block after a first block of properties
        m = _LOGSEQ_PROP_RE.fullmatch(text)
        if m is None:
            break
        out.append((m.group(1), m.group(2).strip()))
    return out


PAGE_PROPS_CHARS = 4000  # how far into a page its page properties are looked for


def logseq_page_props(body: str, limit: int = 50) -> dict[str, str]:
    """The page properties of a Logseq page (logseq_page_lines), lowercased keys, the first of each."""
    out: dict[str, str] = {}
    for key, value in logseq_page_lines(body, limit):
        out.setdefault(key.lower(), value)
    return out


def logseq_page_name(path: str) -> str:
    """The Logseq page a file holds, by its file name (Logseq's `:file/name-format :triple-lowbar`):
    `a___b.md` is page `a/b`, `%3A` is `:` and `%3F` is `?` (url-encoded characters a file name cannot
    hold); a journal (`journals/2024_01_02.md`) is its date in Logseq's default journal title format
    ("Jan 2nd, 2024"). What `[[page name]]` finds (vault/links.py) and the page's title without a
    `title::` property."""
    name = path.rsplit("/", 1)[-1]
    name = name[:-3] if name.lower().endswith(".md") else name
    m = _JOURNAL_RE.fullmatch(name)
    if m and (path.startswith("journals/") or "/journals/" in path):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if 1 <= mo <= 12 and 1 <= d <= 31:
            return f"{_MONTHS[mo - 1]} {_ordinal(d)}, {y}"
    if "%" not in name and "___" not in name:
        return name
    from urllib.parse import unquote  # here: only Logseq vaults need it, and every hook imports this

    return unquote(name.replace("___", "/"))


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _dendron_title(name: str) -> str:
    leaf = name.rsplit(".", 1)[-1]
    # Dendron titles a new note after its leaf: hyphens read as spaces, a lowercase leaf capitalised
    words = leaf.replace("-", " ").strip() or leaf
    return words[:1].upper() + words[1:] if words.islower() else words


def opening_h1(body: str) -> str:
    """The text of an H1 that opens the body (after blank lines), or ""; an H1 further down is a
    section (a template's footer, `# Clippings` after `## Books`), not a name."""
    m = _OPENING_H1_RE.match(body, 0, 1000)  # no copy of the body: it may be megabytes
    if m is None:
        return ""
    t = m.group(1).strip()
    stripped = t.rstrip("#")  # a closing sequence of #s is no part of the text
    return (stripped if stripped != t and (not stripped or stripped[-1] in " \t") else t).strip()


def title_for(path: str, props: dict, body: str, dialect: str, names_files: bool = False) -> tuple[str, list[str]]:
    """-> (the title the app shows, other names to keep searchable as aliases). `names_files`: a plain
    vault named as a note app names its notes (dialect.names_files): no file name is a slug."""
    title, names = _title(path, props, body, dialect, names_files)
    h1 = opening_h1(body)
    if h1 and "{{" not in h1 and "<%" not in h1:
        names.append(h1)
    return title, [n for n in names if n.lower() != title.lower()]


def is_slug(name: str) -> bool:
    """Whether a file name (without .md) is a slug, not a name a person would show."""
    if not name or any(c.isspace() for c in name):
        return False
    inner = name.strip("-_")
    return inner.lower() in _SLUG_NAMES or "-" in inner or "_" in inner or name.islower()


def _title(path: str, props: dict, body: str, dialect: str, names_files: bool = False) -> tuple[str, list[str]]:
    name = path.rsplit("/", 1)[-1][:-3]
    ptitle = props.get("title")
    ptitle = ptitle.strip() if isinstance(ptitle, str) else ""
    if dialect == DENDRON:
        return (ptitle or _dendron_title(name)), []
    if dialect == LOGSEQ:
        m = _JOURNAL_RE.fullmatch(name)
        if m and (path.startswith("journals/") or "/journals/" in path):
            y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
            if 1 <= mo <= 12 and 1 <= d <= 31:
                return f"{_MONTHS[mo - 1]} {_ordinal(d)}, {y}", [f"{y:04d}-{mo:02d}-{d:02d}"]
        own = ptitle or ("title::" in body[:4000] and logseq_page_props(body).get("title", "")) or ""
        if own:
            return own, []
        return logseq_page_name(path), []
    if dialect == FOAM:
        if ptitle:
            return ptitle, []
        m = _FIRST_H1_RE.search(body, 0, 200_000)
        h1 = m.group(1).strip().rstrip("#").strip() if m else ""
        return (h1 or name), []
    if dialect == PLAIN and ptitle:
        return ptitle, []
    if dialect == PLAIN and not names_files and is_slug(name):
        h1 = opening_h1(body)
        if h1 and "{{" not in h1 and "<%" not in h1:
            return h1, []
    # Obsidian shows the file name whatever the note says; its `title:` still names it
    return name, ([ptitle] if ptitle else [])


# ---- whether a plain vault names its notes as a note app does
# Told from the notes themselves, so never in a hook's config (core.config.detect_dialect only looks
# for an app's files): decided when the vault is indexed, kept in the cache dir (NAMING_FILE) for the
# parse stage of every later process, and decided again by the next full rebuild (a new index
# generation).
NAMING_FILE = "vault-naming.json"
NAMING_SAMPLE_NOTES = 400    # notes read to tell how they link, spread evenly over the vault's notes in path order
NAMING_SAMPLE_BYTES = 16_384  # of each note, from its start
NAMING_MIN_WIKILINKS = 10    # fewer `[[links]]` than this in the sample tell nothing: the plain rules hold
# The share of the notes' file names written as names, not slugs (is_slug: `Obsidian Settings for
# Contributors`, `PARA`, `Johnny`), from which the owner names files as titles: a vault named by slugs
# (a site's `kebab-case.md`, a dev folder's `commit-messages.md`) has next to none (lex-notes 0.4%),
# one named in a note app a third or more (obsidian-hub 32%, most vaults over 80%)
NAMING_MIN_NAMED = 0.2
_SAMPLE_WIKILINK_RE = re.compile(r"\[\[[^\[\]\n]++\]\]")
# a markdown link (or image) to a file of the vault: a destination with no scheme (`https:`), no
# leading `#` (a heading of the same note) and no `/` root (a site's absolute path)
_SAMPLE_PATHLINK_RE = re.compile(r"\]\(<?(?![A-Za-z][\w+.-]*+:|[#/])[^()\s<>]++>?\)")
_GENERATION_RE = re.compile(r"index-\d++\.sqlite")  # index/store.py's generations: a rebuild makes a new one


def naming_counts(vault: str, sample: int = NAMING_SAMPLE_NOTES) -> dict[str, int]:
    """How a vault's notes are named and linked: its notes (dot folders, which the apps hide, left
    out), those whose file name is written as a name (not is_slug), and in up to `sample` of them spread over the vault
    the notes read, their `[[wikilinks]]` and their markdown links to the vault's files."""
    paths: list[str] = []
    named = 0
    for root, dirs, files in os.walk(vault):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        for f in sorted(files):
            if f.lower().endswith(".md"):
                paths.append(os.path.join(root, f))
                named += not is_slug(f[:-3])
    step = max(1, len(paths) / sample) if paths else 1
    chosen = [paths[int(i * step)] for i in range(min(sample, len(paths)))]
    wiki = path_links = 0
    for p in chosen:
        try:
            with open(p, "rb") as f:
                text = f.read(NAMING_SAMPLE_BYTES).decode("utf-8", "ignore")
        except OSError:
            continue
        if "[[" in text:
            wiki += len(_SAMPLE_WIKILINK_RE.findall(text))
        if "](" in text:
            path_links += len(_SAMPLE_PATHLINK_RE.findall(text))
    return {"notes": len(paths), "named": named, "read": len(chosen), "wikilinks": wiki, "path_links": path_links}


def names_files(vault: str | None, cache_dir: str | None) -> bool:
    """Whether a plain vault names its notes as a note app does: its notes link to each other by
    name (at least NAMING_MIN_WIKILINKS `[[wikilinks]]` in a sample, more than markdown links by
    path: a `[[name]]` finds a note by its file name) and name their files as titles (at least
    NAMING_MIN_NAMED of the file names are written as names, not slugs). Read from the cache dir's NAMING_FILE when it
    was decided for this vault and the newest index generation there; else decided now and written
    there (the first parse of an index build)."""
    if not vault:
        return False
    vault = os.path.abspath(os.path.expanduser(vault))
    gen = None
    where = os.path.join(cache_dir, NAMING_FILE) if cache_dir else None
    if where:
        import json  # here: only a plain vault's parse stage needs it

        try:
            gens = [n for n in os.listdir(cache_dir) if _GENERATION_RE.fullmatch(n)]
            gen = max(gens, key=lambda n: (len(n), n)) if gens else None
        except OSError:
            pass
        try:
            with open(where, encoding="utf-8") as f:
                kept = json.load(f)
            if kept.get("vault") == vault and kept.get("generation") == gen:
                return bool(kept.get("names_files"))
        except (OSError, ValueError, AttributeError):
            pass
    c = naming_counts(vault)
    decided = (c["wikilinks"] >= NAMING_MIN_WIKILINKS and c["wikilinks"] > c["path_links"]
               and c["named"] >= NAMING_MIN_NAMED * c["notes"])
    if where:
        from ..core.fsutil import atomic_write

        try:
            atomic_write(where, json.dumps({"vault": vault, "generation": gen, "names_files": decided, **c}),
                         durable=False)
        except OSError:
            pass
    return decided
