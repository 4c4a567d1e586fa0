"""The parse stage: one note's bytes -> a Note, read the way Obsidian reads it (properties, links,
tags, headings, summary). Finding the files is the scan stage (`scan`)."""
from __future__ import annotations

import datetime as _dt
import fnmatch
import json
import os
import re
import time
from dataclasses import dataclass, field
TYPE_CHECKING = False  # importing typing costs every hook a few ms
if TYPE_CHECKING:
    from typing import Any, Iterator

from ..core import textutil as T
from ..core.yamlread import MAX_PROP_VALUES, load_yaml, props_too_big
from . import links as L
from . import frontmatter as _fm
from .appsettings import prose_key, template_prose
from .dialect import DENDRON, LOGSEQ, OBSIDIAN, PLAIN, logseq_page_lines, logseq_page_props, names_files, title_for
from .privacy import head_says_private, props_say_private
from .scan import VaultFile

# Every pattern here is linear in its input: possessive quantifiers, or classes that stop at the
# delimiter they wait for, so no unclosed `[[`, `[x](` or `**` makes a later start rescan the text.
# `(?:!\[|\[)`, not `!?\[`: the same matches, but a pattern that opens with a choice of literals is
# looked for by the regex engine's fast scan for them, not tried at every position of the text.
MD_STRIP_RE = re.compile(r"(?:!\[|\[)\[([^\[\]|\n]*+)(?:\|([^\[\]\n]*+))?\]\]")
# a markdown link's destination may hold balanced parentheses (CommonMark): `[A (B)](A (B).md)`;
# attributes set right after it (`![x](a.png){max-width: 300px}`: Dendron's image style, markdown-it-attrs)
# are how it is drawn, no text
MDLINK_TEXT_RE = re.compile(r"(?:!\[|\[)([^\[\]\n]*+)\]\((?:[^()\n]|\([^()\n]*+\))*+\)(?:\{[^{}\n]*+\})?")
# what a malformed link leaves once its link is read (`[a](x.md)](y.md)`): link syntax, never text
MDLINK_REST_RE = re.compile(r"\]\((?:[^()\s]|\([^()\s]*+\))*+\)")
EMPH_RE = re.compile("|".join(rf"{d}(?=\S)((?:(?!{d}).)+?)(?<=\S){d}" for d in
                              (r"\*\*", "__", r"\*", "_", "~~", "==")))
SUMMARY_CHARS = 240
SUMMARY_KEYS = T.SUMMARY_KEYS
# Readwise's export (its Obsidian plugin's default template) keeps an article's properties in the body:
# a `## Metadata` heading over `- Key: value` lines (Author, Full Title, Category, Summary, URL). They
# are read as inline fields are: searchable as properties, `Summary` the note's summary, never its prose.
METADATA_BLOCK_RE = re.compile(r"^#{1,6}[ \t]+Metadata[ \t]*\n((?:[ \t]*[-*][ \t]+[A-Z][\w ]{0,30}:[ \t].*(?:\n|$))+)",
                               re.M)
_METADATA_LINE_RE = re.compile(r"^[ \t]*[-*][ \t]+([A-Z][\w ]{0,30}):[ \t]+(.*)$", re.M)


def metadata_block(body: str) -> tuple[list[tuple[str, str]], tuple[int, int] | None]:
    """A Readwise `## Metadata` list (METADATA_BLOCK_RE) -> ([(key, value)], its span in `body`), or
    ([], None)."""
    m = METADATA_BLOCK_RE.search(body) if "Metadata" in body else None
    if m is None:
        return [], None
    return [(k.strip(), v.strip()) for k, v in _METADATA_LINE_RE.findall(m.group(1))], m.span()


# Text no owner means as a summary: template placeholders and macros ({{date}}, {{fm.desc}},
# {{embed [[x]]}}, Templater's <% tp.… %>), obsidian-hub's #placeholder/… tags, Logseq block
# references ((uuid)). `%% … %%` comments are dropped line by line (first_paragraph): they span lines.
PLACEHOLDER_RE = re.compile(r"\{\{[^{}\n]*+\}\}|<%[^%\n]*+%>|\(\([0-9A-Fa-f-]{8,}+\)\)"
                            r"|(?<![\w#/])#placeholder/[^\s#,;]*+")
# A tag under `placeholder/` (`#placeholder/author`) is a template's blank to fill in, not a tag the
# owner gave the note: never one of its tags (nor a `why`'s "tagged #…")
PLACEHOLDER_TAG_PREFIX = "placeholder/"
# An Obsidian block id (`text ^github`, or `^id` on a line of its own): the anchor a `[[note#^id]]`
# link points at, set at the end of a line; never text shown
BLOCK_ID_RE = re.compile(r"(?:^|[ \t])\^[A-Za-z0-9-]++[ \t]*+$", re.M)
# An inline footnote (`text^[the note's source]`, Obsidian and Pandoc): the note's aside, not its sentence
INLINE_FOOTNOTE_RE = re.compile(r"\^\[(?:[^\[\]\n]|\[\[[^\[\]\n]*\]\]|\[[^\[\]\n]*\])*\]")
# `dendron://vault/note.name` (Dendron's cross-vault link) reads as its note's name
DENDRON_URL_RE = re.compile(r"dendron://(?:[^/\s\[\]|]*+/)?([^\s\[\]|#]*+)")  # (a vault's name may be left out)
# A changelog line, narrowly: a line that opens with a release version (`v1.2`, `1.2.3`) or an ISO
# date followed by a separator (`2023-01-02: fixed …`, `v0.5.1 - added …`): a log entry, not a summary.
CHANGELOG_RE = re.compile(r"(?:v\d+(?:\.\d+)++|\d+\.\d+\.\d+)(?:[-+][0-9A-Za-z.]*+)?(?:[\s:\u2013\u2014]|$)"
                          r"|\d{4}-\d{2}-\d{2}(?:\s*+[:\u2013\u2014]|\s++-\s|\s*+$)")
# HTML tags (`<img src=…>`, `<a href=…>`, `</div>`): markup, never a summary's words; the text
# between tags is kept. A `<` that opens no tag name (`a < b`, `<https://…>`) is text.
HTML_TAG_RE = re.compile(r"</?([A-Za-z][\w-]*+)(?:\s[^<>\n]*+)?/?>")
_INLINE_TAGS = frozenset("a abbr b bdi bdo cite code data dfn em i kbd mark q s samp small span strong sub sup "
                         "time u var".split())  # inside a word or sentence: dropped, not a space


def _html_tag(m: re.Match) -> str:
    return "" if m.group(1).lower() in _INLINE_TAGS else " "

# Template text, not prose: a fill-in bracket a template leaves for its user (`[Start Date]`,
# `[Lead's Name]`: capitalised words in brackets that are no link, task box, footnote or callout),
# and the instruction set in emphasis beside it (`*(Replace with actual start date)*`).
FILL_IN_RE = re.compile(r"(?<![\[!\\])\[[A-Z][^\[\]\n]{0,80}+\](?![(\[:])")
INSTRUCTION_RE = re.compile(r"(\*|_)\([^()\n]*+\)\1")
# Dataview's inline queries (`= this.file.name`, `$= dv.…`): computed by the app, never text
DATAVIEW_INLINE_RE = re.compile(r"`\$?=[^`\n]*+`")
# A line that is all bold (`**Setup**`) with no sentence end: a heading written by hand
_BOLD_HEADING_RE = re.compile(r"(\*\*|__)[^*_\n]++\1:?")
_SETEXT_RE = re.compile(r"=++|-++")
# A `key:: value` line (a Logseq page property, a Dataview inline field): a fact, not prose
# (the value may follow the `::` at once, `quote::“…”`; `Foo::bar` is code, not a field)
_FIELD_LINE_RE = re.compile(r"(?:[A-Za-z][\w -]{0,40}+|\*\*[^*\n]{1,40}+\*\*)::(?:\s|$|(?=[^\w:]))")
# What is left of a line once its links and tags are taken out, when the line held nothing but links
# (a table of contents, a "See also" row) or tags (`#dv/list #dvjs`, a template's tag line):
# separators and list punctuation.
_LINKS_ONLY_RE = re.compile(r"(?:!?\[\[[^\[\]\n]*+\]\]|!?\[[^\[\]\n]*+\]\((?:[^()\n]|\([^()\n]*+\))*+\)(?:\{[^{}\n]*+\})?"
                            r"|[A-Za-z][\w+.-]*+://\S++|(?<!\S)#[^\s#,;]++)")
_SEPARATORS_RE = re.compile(r"[\s,;:|·•/→←<>\-–—()*_]*+")
# A label before a line's links (`Source: https://…`, `*Source:* [[x]]`): with nothing but links
# after it, the line is a reference, not prose
_LINK_LABEL_RE = re.compile(r"[*_]{0,2}+[^\W_][\w /-]{0,30}+:[*_]{0,2}+\s")
# A paragraph that is only a salutation ("Good day!", "Hello friends!", "Welcome!"): it opens a
# note, it says nothing about it
GREETING_RE = re.compile(r"(?:hello|hi|hey|howdy|greetings|welcome|good (?:morning|day|afternoon|evening)"
                         r"|hola|bonjour|salut|hallo|ciao)(?:(?:[ ,]+[^\W\d_]+){0,2}[ ]*!+|[.!]*)", re.I)
# A paragraph that is only a label (`CHALLENGE`, `Key points:`): a heading written as a line of its own,
# as slide decks and exported reports set them; the prose starts after it
LABEL_MAX_WORDS = 3
_LABEL_RE = re.compile(r"[^\W\d_][\w'&/ -]*:|[^\W\d_a-z]+(?:[ &/-]+[^\W\d_a-z]+)*:?")
_SENTENCE_END_RE = re.compile(r"[.!?…][\"'’”)\]*_]*+(?=\s)|[。！？]")
PLAIN_MAX = 4 * SUMMARY_CHARS  # plain_text keeps at most this many characters of its input
FIRST_PARAGRAPH_LINES = 2000

# ---- property text: what a note's properties say, searchable (index/store.py's fts `props` column)
# A property's key normalised for the lists below: lowercase letters and digits only ("Date Created",
# "date_created" and "date-created" are one key).
_KEY_NORM_RE = re.compile(r"[^0-9a-z]+")
# Keys whose values are no knowledge of their own, in frontmatter and inline fields alike: what the
# index keeps in columns of their own (title, aliases, tags; project, which `query` finds when the
# question names it), the plugin's bookkeeping (dates of
# the note itself, confidence, validation), and how a note is published or shown (CSS classes,
# banners, SEO and social-card fields, publish flags, layout). A note's `id` is kept: an owner may ask
# by it, and its random tokens match nothing else.
PROP_SKIP_KEYS = frozenset((
    "title", "aliases", "alias", "tags", "tag", "project",
    "created", "updated", "modified", "lastvalidated", "confidence", "datecreated", "datemodified",
    "dateupdated", "createdat", "updatedat", "lastmodified", "creationdate", "modificationdate",
    "cssclasses", "cssclass", "publish", "permalink", "slug", "layout", "draft", "template",
    "cover", "coverimage", "coverurl", "icon", "sticker", "navorder", "navexclude", "weight", "toc",
    "comments", "sidebar", "hidden", "excludefromproject"))
PROP_SKIP_PREFIXES = ("banner", "seo", "css", "og", "twitter", "image", "thumbnail")
# `type` and `status` values the plugin's own rules read (query's kind asked for and status rules, the
# brief's lists of open pitfalls and current decisions): they steer, they are not the note's words.
# Any other value (`Status: WIP`, `Type: Development`) is the owner's, and searchable.
RULE_VALUES = frozenset(T.TYPE_WORDS.values()) | set(T.STATUS_WORDS) | {
    v for vs in T.STATUS_WORDS.values() for v in vs} | {
    "note", "hub", "moc", "journal", "concept", "active", "superseded", "retracted", "stale", "deprecated",
    "obsolete", "archived", "closed", "fixed", "rejected"}
_RULE_KEYS = ("type", "status")
# Logseq's own block properties (docs.logseq.com, "Built-in properties"): a block's anchor and how it
# is drawn, never a fact of the page (`id::` is the target of a ((block ref))).
LOGSEQ_BUILTIN_KEYS = frozenset((
    "id", "collapsed", "heading", "backgroundcolor", "hlpage", "hlcolor", "hltype", "hlstamp", "lstype",
    "template", "templateincludingparent", "filters", "public", "icon", "querytable", "queryproperties",
    "querysortby", "querysortdesc", "logseqorderlistype", "logseqtocollapse"))
PROP_TEXT_MAX = 20_000  # characters of property text kept per note (a value past it is not searchable)
PROP_VALUE_MAX = 2_000   # characters of one value
# Dataview inline fields (blacksmithgu.github.io/obsidian-dataview, "Adding Metadata"), and Logseq
# properties, which are written the same way: `key:: value` as a line of its own (also in a list item
# or a callout, `**key**:: value` with the key in bold), and `[key:: value]` / `(key:: value)` inside
# a line. Keys start with a letter or digit; a value runs to the end of the line or the bracket.
_FIELD_LINE_TEXT_RE = re.compile(
    r"^[ \t]*+(?:>[ \t]*+)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]++)?(?:\*\*|__)?([^\W_][\w \-/]{0,60}?)(?:\*\*|__)?::"
    r"(?:[ \t]++([^\n]*+))?$", re.M)
_FIELD_BRACKET_RE = re.compile(
    r"(?<!\[)\[([^\W_][\w \-]{0,60}?)::[ \t]*+((?:[^\[\]\n]|\[\[[^\[\]\n]*+\]\])*+)\]"
    r"|\(([^\W_][\w \-]{0,60}?)::[ \t]*+([^()\n]*+)\)")
_PLACEHOLDER_VALUE_RE = re.compile(r"\{\{|<%|\$\{|#placeholder/")  # a template's variable, never a fact


@dataclass
class Note:
    path: str                      # vault-relative POSIX path
    title: str                     # file name without .md
    display_title: str
    type: str
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    summary: str = ""
    status: str | None = None
    project: str | None = None
    created: str | None = None
    updated: str | None = None
    private: bool = False
    props: dict[str, Any] = field(default_factory=dict)
    prop_text: str = ""             # "key: value" lines: the properties and inline fields that are knowledge
    links: list[L.RawLink] = field(default_factory=list)
    body: str = ""
    warnings: list[str] = field(default_factory=list)
    skipped: bool = False
    mtime_ns: int = 0
    size: int = 0
    hash: str = ""
    anchors: list = field(default_factory=list)  # the code it cites (vault/anchors.py)

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""


def _json_default(o):
    if isinstance(o, (_dt.date, _dt.datetime)):
        return o.isoformat()
    return str(o)


_ENCODE = json.JSONEncoder(ensure_ascii=False, default=_json_default).encode  # json.dumps makes one per call
_enc_str = json.encoder.encode_basestring  # what _ENCODE writes a str as (C when available)
_SCALAR_JSON = {True: "true", False: "false", None: "null"}


def _scalar_json(v) -> str | None:
    """A str, None, bool, int or date as _ENCODE writes it; None for anything else."""
    t = type(v)
    if t is str:
        return _enc_str(v)
    if t is bool or v is None:
        return _SCALAR_JSON[v]
    if t is int:
        return int.__repr__(v)
    if t is _dt.date:
        return _enc_str(v.isoformat())
    return None


def _list_json(v: list) -> str | None:
    items = [_scalar_json(x) for x in v]
    return None if None in items else "[" + ", ".join(items) + "]"


def dumps(o) -> str:
    """JSON text as _ENCODE writes it. The lists of str and the properties of one level of scalars
    (and lists of them) that most notes have are written here: the encoder's set-up per call cost
    more than the encoding."""
    t = type(o)
    if not o and (t is list or t is dict):  # most notes' aliases, warnings, props
        return "[]" if t is list else "{}"
    if t is list:
        text = _list_json(o)
        if text is not None:
            return text
    elif t is dict:
        parts = []
        for k, v in o.items():
            text = _list_json(v) if type(v) is list else _scalar_json(v)
            if text is None or type(k) is not str:
                return _ENCODE(o)
            parts.append(f"{_enc_str(k)}: {text}")
        return "{" + ", ".join(parts) + "}"
    return _ENCODE(o)


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """-> (yaml text or None, body, number of lines before the body). The block is found as every
    reader finds it (frontmatter.locate); one that is never closed is no frontmatter."""
    block = _fm.locate(text)
    if block is None or block.close is None:
        return None, text, 0
    return block.yaml, text[block.body_start:], text.count("\n", 0, block.body_start)



# simple_yaml: the properties most notes have (`key: scalar`, `key: [a, b]`, `key:` and `- item`
# lines), read without PyYAML's constructor, which was a fifth of a rebuild's parsing. It returns
# what yaml.safe_load returns, or None for anything it is not sure of (then PyYAML reads it):
# tabs, comments, anchors, tags, block scalars, escapes, nesting, multi-line scalars, and every
# plain scalar PyYAML would resolve to something other than a string, null, a bool, a plain int or
# a YYYY-MM-DD date (tests/test_notes_yaml.py holds the two equal).
_YAML_HARD_PATTERN = r"[\t#&*!|>%@`{}\\\ufeff\x85\u2028\u2029]|[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
_yaml_hard_rx = None


def _yaml_hard():
    """_YAML_HARD_PATTERN compiled when a frontmatter that is not ASCII first asks (3 ms of every
    process that imports this module, most of which read none)."""
    global _yaml_hard_rx
    if _yaml_hard_rx is None:
        _yaml_hard_rx = re.compile(_YAML_HARD_PATTERN)
    return _yaml_hard_rx


# _YAML_HARD_PATTERN for ASCII text (most frontmatters): one negated class (the printable characters but
# #&*!|>%@`{}\\, and \n), which the regex engine scans for in one loop, where it tries the
# alternation at every character; all ASCII, so it compiles in a fiftieth of its time
# (tests/test_notes_yaml.py checks every ASCII character against _YAML_HARD_PATTERN).
_YAML_HARD_ASCII = re.compile(r"[^\n\x20\x22\x24\x27-\x29\x2b-\x3d\x3f\x41-\x5b\x5d-\x5f\x61-\x7a\x7e]")
_YAML_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
_YAML_ITEM = re.compile(r"( *)- +(.*)")
_YAML_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_YAML_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
# An unsigned plain decimal (`confidence: 0.7`, which every note `remember` writes carries): PyYAML's
# float pattern matches it and its constructor returns float(v), and no other of its implicit types
# does, so it needs no PyYAML import (~15 ms of a remember's process, with the full parse it led to)
_YAML_DECIMAL = re.compile(r"[0-9]+\.[0-9]+")
_YAML_RESOLVED = frozenset("yYnNtTfFoO-+0123456789.<~=")  # first characters of PyYAML's implicit types
# The plain words PyYAML resolves to a bool or null (its Resolver's YAML 1.1 lists): every other plain
# scalar that starts with a letter is a string, so these need no PyYAML import ("title", "tags", "type")
_YAML_WORDS = {**dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
               **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
               **dict.fromkeys(("null", "Null", "NULL"), None)}
_NO_VALUE = object()
_yaml_resolver = None


def _yaml_scalar(v: str, flow: bool = False):
    """One scalar (quoted or plain, surrounding spaces stripped) as safe_load reads it, or _NO_VALUE."""
    if not v:
        return _NO_VALUE
    c = v[0]
    if c == '"' or c == "'":
        if len(v) < 2 or v[-1] != c or c in v[1:-1] or (flow and "," in v):
            return _NO_VALUE
        return v[1:-1]
    if c in "-?:,[]{}#&*!|>'\"%@`" or ": " in v or v[-1] == ":" or (flow and ":" in v):
        return _NO_VALUE
    if c not in _YAML_RESOLVED:
        return v
    if c.isalpha():
        return _YAML_WORDS.get(v, v)
    if c <= "9" and _YAML_DATE.fullmatch(v):  # what PyYAML resolves as a timestamp and builds as a date
        try:
            return _dt.date(int(v[:4]), int(v[5:7]), int(v[8:10]))
        except ValueError:  # PyYAML raises the same, and the note gets its warning from there
            return _NO_VALUE
    if c <= "9" and _YAML_DECIMAL.fullmatch(v):
        return float(v)
    import yaml

    global _yaml_resolver
    if _yaml_resolver is None:
        _yaml_resolver = yaml.resolver.Resolver()
    tag = _yaml_resolver.resolve(yaml.ScalarNode, v, (True, False))
    if tag == "tag:yaml.org,2002:str":
        return v
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:int" and _YAML_INT.fullmatch(v):
        return int(v)
    return _NO_VALUE  # any other timestamp, a float, ...: PyYAML's own constructor reads it


def simple_yaml(fm: str) -> dict | None:
    """A frontmatter of simple `key: value` lines as yaml.safe_load reads it, or None (see above)."""
    if (_YAML_HARD_ASCII if fm.isascii() else _yaml_hard()).search(fm):
        return None
    out: dict = {}
    lines = fm.split("\n")
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        if not line.strip(" "):
            continue
        m = _YAML_KEY.fullmatch(line.rstrip(" "))
        if m is None:
            return None
        key = m.group(1)
        if key[0] in _YAML_RESOLVED and _yaml_scalar(key) != key:  # `on:`, `null:`: not a str key
            return None
        rest = m.group(2)
        if rest:
            if rest[0] == "[":
                if rest[-1] != "]" or "[" in rest[1:] or "]" in rest[:-1]:
                    return None
                inner = rest[1:-1]
                if not inner.strip():
                    value = []
                else:
                    value = [_yaml_scalar(x.strip(" "), flow=True) for x in inner.split(",")]
                    if _NO_VALUE in value:
                        return None
            else:
                value = _yaml_scalar(rest)
                if value is _NO_VALUE:
                    return None
        else:  # `key:` then block sequence items, or nothing (null)
            items, indent = [], None
            while i < n:
                nxt = lines[i]
                if not nxt.strip(" "):
                    i += 1
                    continue
                im = _YAML_ITEM.fullmatch(nxt.rstrip(" "))
                if im is None:
                    if nxt[0] == " ":  # a nested mapping, a continuation line
                        return None
                    break
                if indent is None:
                    indent = im.group(1)
                elif im.group(1) != indent:
                    return None
                v = _yaml_scalar(im.group(2))
                if v is _NO_VALUE:
                    return None
                items.append(v)
                i += 1
            value = items if indent is not None else None
        out[key] = value
    return out or None



def _prop_ci(props: dict, *names: str):
    """The value of the first of `names` the properties have, in any case (`Tags`, `ALIASES`): Obsidian
    reads its tags and aliases properties case-insensitively (its /^tags?$/i, /^alias(es)?$/i)."""
    for name in names:
        if name in props:
            return props[name]
    if props:
        low = {}
        for k in props:
            low.setdefault(k.lower(), k)
        for name in names:
            if name in low:
                return props[low[name]]
    return None


def _loose_props(fm: str) -> dict[str, str]:
    """The top-level `key: scalar` lines of a frontmatter YAML cannot read (one bad line hides every
    property from YAML): what they say is still the owner's, searchable as property text (only)."""
    out: dict[str, str] = {}
    for line in fm.split("\n"):
        m = _LOOSE_KEY_RE.fullmatch(line.rstrip())
        if m and m.group(2):
            v = m.group(2).strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1]
            out.setdefault(m.group(1).strip(), v)
    return out


_LOOSE_KEY_RE = re.compile(r"([A-Za-z_][\w \-]{0,60}?):[ \t]+([^\[{|>&*!#][^\n]*)")


def _logseq_names(value: str) -> list[str]:
    """A Logseq property value's page names: `[[A]], [[B c]], #d, e` -> A, B c, d, e."""
    out = []
    for m in _LOGSEQ_NAME_RE.finditer(value):
        name = (m.group(1) or m.group(2) or m.group(3) or "").strip()
        if name:
            out.append(name)
    return out


_LOGSEQ_NAME_RE = re.compile(r"\[\[([^\[\]\n]*+)\]\]|#\[\[([^\[\]\n]*+)\]\]|#?([^,\[\]#\n]+)")


def _str_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def _tag_list(value) -> list[str]:
    out = []
    for v in _str_list(value):
        for t in v.split():
            t = t.lstrip("#").strip()
            if t:
                out.append(t)
    return out


def _date(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return str(value)


def prop_key_norm(key: str) -> str:
    """A property key as the skip lists hold it: "Date Created" -> "datecreated"."""
    return _KEY_NORM_RE.sub("", key.lower())


def _skipped_key(norm: str, inline: bool) -> bool:
    return (not norm or norm in PROP_SKIP_KEYS or norm.startswith(PROP_SKIP_PREFIXES)
            or (inline and norm in LOGSEQ_BUILTIN_KEYS))


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_ISO_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.+Z-]*)?")


def _date_words(text: str) -> str:
    """An ISO date value with the day as a question names it: `1984-07-31 (31 July 1984, July
    31st)`, so "whose birthday is on July 31st?" finds `birthday: 1984-07-31`."""
    m = _ISO_DATE_RE.fullmatch(text)
    if m and 1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31:
        day, month = int(m[3]), _MONTHS[int(m[2]) - 1]
        nth = "th" if 10 < day % 100 < 14 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
        return f"{text} ({day} {month} {m[1]}, {month} {day}{nth})"
    return text


def _value_text(v) -> str:
    """One property value as its words: text (whitespace made one space), numbers as written,
    dates also in words (_date_words); a list of them joined by ", "; booleans, nulls, mappings
    and template variables are no text."""
    t = type(v)
    if t is str:
        text = " ".join(v.split())
        return "" if _PLACEHOLDER_VALUE_RE.search(text) else _date_words(text[:PROP_VALUE_MAX])
    if t is int or t is float:
        return repr(v)
    if isinstance(v, (_dt.date, _dt.datetime)):
        return _date_words(v.isoformat())
    if t is list:
        return ", ".join(x for x in (_value_text(i) for i in v if type(i) is not list) if x)[:PROP_VALUE_MAX]
    return ""


def property_text(props: dict, masked_body: str, skip_key: str | None = None, logseq: bool = False,
                  fields: list[tuple[str, str]] = ()) -> str:
    """What the note's properties say, as `key: value` lines, for search and `why`: frontmatter
    properties and inline fields whose keys are knowledge (PROP_SKIP_KEYS, LOGSEQ_BUILTIN_KEYS).
    Inline fields are Dataview's (`key:: value`, `[key:: value]`, `(key:: value)`, anywhere in the
    note: Dataview gives them to the page), or in a Logseq page (`logseq`) its page properties only
    (a block's properties are the block's). `masked_body`: the body with code blanked. `skip_key`:
    the property that became the summary (its text is searchable there). `fields`: more (key, value)
    pairs read from the body (metadata_block)."""
    out: list[str] = []
    seen: set[str] = set()
    size = 0
    for k, v in props.items():
        key = str(k).strip()
        norm = prop_key_norm(key)
        if key == skip_key or _skipped_key(norm, False):
            continue
        if norm in _RULE_KEYS:
            v = [x for x in (v if type(v) is list else [v]) if not (type(x) is str and x.strip().lower() in RULE_VALUES)]
        text = _value_text(v)
        if text:
            out.append(f"{key}: {text}")
            size += len(out[-1]) + 1
            if size > PROP_TEXT_MAX:
                break
    if ("::" in masked_body or fields) and size <= PROP_TEXT_MAX:
        found: list[tuple[int, str, str]] = [(-1, k, v) for k, v in fields]
        if logseq:
            found = [(0, k, v) for k, v in logseq_page_lines(masked_body)]
            masked_body = ""
        for m in _FIELD_LINE_TEXT_RE.finditer(masked_body):
            found.append((m.start(), m.group(1), m.group(2) or ""))
        for m in _FIELD_BRACKET_RE.finditer(masked_body):
            found.append((m.start(), m.group(1) or m.group(3), (m.group(2) if m.group(1) else m.group(4)) or ""))
        for _at, key, value in sorted(found, key=lambda f: f[0]):
            key, value = key.strip(), " ".join(value.split())
            if not value or _PLACEHOLDER_VALUE_RE.search(value) or _skipped_key(prop_key_norm(key), True) \
                    or _at < 0 and key == skip_key:
                continue
            line = f"{key}: {_date_words(value[:PROP_VALUE_MAX])}"
            if line in seen:  # the same field again (a type on every list item) says nothing more
                continue
            seen.add(line)
            out.append(line)
            size += len(line) + 1
            if size > PROP_TEXT_MAX:
                break
    return "\n".join(out)[:PROP_TEXT_MAX]


def _emph(m: re.Match) -> str:
    return next(g for g in m.groups() if g is not None)


def plain_text(s: str, limit: int = PLAIN_MAX, label_first: bool = False) -> str:
    """Markdown reduced to its words (link text, no emphasis marks); only the first `limit`
    characters are read, as callers keep a title or a summary of a few hundred. `label_first`:
    `[[x|y]]` is Dendron's label-first link, read as x."""
    s = s[:limit]
    if "[[" in s:  # each pattern needs characters most text lacks: look for them first
        s = MD_STRIP_RE.sub(_label_first_text if label_first else _wikilink_text, s)
    if "](" in s:
        s = MDLINK_TEXT_RE.sub(_group1, s)
        if "](" in s:
            s = MDLINK_REST_RE.sub("", s)
    if _EMPH_CHARS.search(s):
        s = EMPH_RE.sub(_emph, s)
    # each run of whitespace as one space, the ends stripped: what re.sub(r"\s+", " ", s).strip()
    # gives (str.split and re's \s agree on what is a space), at a third of its CPU
    return " ".join(s.split())


_EMPH_CHARS = re.compile(r"[*_~=]")


def _wikilink_text(m: re.Match) -> str:
    return (m.group(2) or m.group(1).split("#")[0]).strip().rstrip("\\")


def _label_first_text(m: re.Match) -> str:
    return (m.group(1) if m.group(2) is not None else m.group(1).split("#")[0]).strip().rstrip("\\")


def _group1(m: re.Match) -> str:
    return m.group(1)


_QUOTE_MARKS_RE = re.compile(r"^(>\s*)+(\[![^\]]*\][+-]?\s*)?")
_LIST_MARK_RE = re.compile(r"^([-*+]|\d+[.)])\s+(\[.\]\s+)?")


def _lines(text: str, limit: int) -> Iterator[str]:
    """The first `limit` lines of `text`, one at a time (a split would cut up the whole body)."""
    pos, n = 0, len(text)
    while pos < n and limit > 0:
        nl = text.find("\n", pos)
        if nl < 0:
            yield text[pos:]
            return
        yield text[pos:nl]
        pos = nl + 1
        limit -= 1


def clean_summary(s: str, label_first: bool = False) -> str:
    """Summary text as its reader sees it: placeholders and HTML tags dropped, links read as their
    labels, cut."""
    if "{{" in s or "<%" in s or "((" in s or "#placeholder/" in s:
        s = PLACEHOLDER_RE.sub(" ", s)
    if "^" in s:
        s = INLINE_FOOTNOTE_RE.sub("", BLOCK_ID_RE.sub("", s))
    if "<" in s:
        s = HTML_TAG_RE.sub(_html_tag, s)
    if "dendron://" in s:
        s = DENDRON_URL_RE.sub(_group1, s)
    s = plain_text(s, label_first=label_first)
    # what is left of a placeholder-only text (a lone bullet, a colon) is no summary
    return trim(s) if _SEPARATORS_RE.sub("", s) else ""


def _links_only(s: str) -> bool:
    m = _LINK_LABEL_RE.match(s)
    return not _SEPARATORS_RE.sub("", _LINKS_ONLY_RE.sub("", s[m.end():] if m else s))


def _outside(parts: list[str], inside: bool) -> tuple[str, bool]:
    """A line split at its span marks (`%%`, `<%`/`%>`), outside and inside alternating from the state
    the line starts in -> (its text outside the spans, whether a span is still open at its end)."""
    text = " ".join(p for i, p in enumerate(parts) if (i % 2 == 0) != inside).strip()
    return text, inside != (len(parts) % 2 == 0)


_INLINE_DISPLAY_MATH_RE = re.compile(r"\$\$([^$\n]+?)\$\$")


def _label(s: str) -> bool:
    """A line that labels what follows (`_LABEL_RE`: capitals, or a few words and a colon), not prose."""
    return len(s.split()) <= LABEL_MAX_WORDS and bool(_LABEL_RE.fullmatch(s))


def first_paragraph(masked_body: str, label_first: bool = False,
                    template: frozenset[str] = frozenset()) -> str:
    """The note's first paragraph of prose: past headings (ATX, setext, a bold line), tables, rules,
    embeds, display formulas (`$$` … `$$`), `%% comments %%`, placeholder-only lines, lines of nothing
    but links, `key:: value` fields, changelog lines (CHANGELOG_RE) and the prose of the vault's
    templates (`template`: appsettings.template_prose), an instruction the note still carries."""
    para: list[str] = []
    size = 0
    listed = False  # the paragraph so far is a list item's (a lone `-` after it is an empty item)
    in_comment = False  # inside a `%% … %%` comment that spans lines
    in_script = False   # inside a Templater command that spans lines (`<%*` … `%>`): a template's code
    in_math = False     # inside a display math block (`$$` … `$$`, MathJax in Obsidian): a formula, not prose
    # the first FIRST_PARAGRAPH_LINES lines are looked at (past blank lines, headings, tables)
    for line in _lines(masked_body.lstrip(), FIRST_PARAGRAPH_LINES):
        if size > PLAIN_MAX:
            break
        s = line.strip()
        if in_math or s.lstrip("> \t").startswith("$$"):  # (also inside a callout or quote)
            # a display formula ends the paragraph before it; the prose resumes after its closing `$$`
            # (open until a line holds the closing `$$`; `$$ x $$` on one line opens nothing)
            in_math = s.count("$$") % 2 == 0 if in_math else s.count("$$") == 1
            if para:
                break
            continue
        if in_script or s.startswith("<%"):
            # a Templater command opened at a line's start and left open runs to its `%>`; a `<%` in
            # prose (`Use <% for ERB tags`, `scores <%5`) is text
            if in_script or s.count("<%") > s.count("%>"):
                s, in_script = _outside(re.split(r"<%|%>", s), in_script)
                if not s:
                    continue
        if in_comment or "%%" in s:
            s, in_comment = _outside(s.split("%%"), in_comment)
            if not s:
                continue
        if not s:
            if para and len(para) == 1 and (GREETING_RE.fullmatch(para[0]) or _label(para[0])):
                para, size = [], 0  # a salutation or a label on its own: the prose starts after it
            elif para:
                break
            continue
        if "^" in s:
            s = BLOCK_ID_RE.sub("", s)
            if not s:
                continue  # a block id on a line of its own names the block before it: not there
        if s.startswith("#") and (len(s) == 1 or s[1] in "# \t"):
            if para:
                break
            continue
        if para and _SETEXT_RE.fullmatch(s):
            if listed:  # an empty list item ends the item before it
                break
            para, size = [], 0  # the paragraph so far was a setext heading
            continue
        if s.startswith("|") or s.startswith("---") or s.startswith("![") or s.startswith("==="):
            if para:
                break
            continue
        if s[0] == ">":
            m = _QUOTE_MARKS_RE.match(s)
            s = s[m.end():]
            # a callout's first line: its type and title, a heading of the callout unless the title
            # is a sentence (`> [!TIP] This is my homepage.`); a heading inside a quote is one too
            if (m.group(2) and not _SENTENCE_END_RE.search(s + " ")) or (
                    s.startswith("#") and (len(s) == 1 or s[1] in "# \t")):
                if para:
                    break
                continue
        item = False
        if s and (s[0] in "-*+" or s[0].isdigit()):
            s, item = _LIST_MARK_RE.subn("", s)
            if item and s.startswith("#") and (len(s) == 1 or s[1] in "# \t"):  # a heading in a list item (Logseq)
                if para:
                    break
                continue
        if template and s and prose_key(line) in template:
            continue  # as if it were not there, like a placeholder-only line
        if s and ("{{" in s or "<%" in s or "((" in s or "#placeholder/" in s or "<" in s):
            s = HTML_TAG_RE.sub(_html_tag, PLACEHOLDER_RE.sub(" ", s)).strip()
            if not _SEPARATORS_RE.sub("", s):
                continue  # a placeholder-only or markup-only line: as if it were not there
        if s and "[" in s and FILL_IN_RE.search(s):
            continue  # a template's fill-in line: template text, not prose
        if s and "(" in s and INSTRUCTION_RE.search(s):
            s = INSTRUCTION_RE.sub(" ", s).strip()
            if not _SEPARATORS_RE.sub("", s):
                continue
        if s and (_links_only(s) or CHANGELOG_RE.match(s) or _BOLD_HEADING_RE.fullmatch(s)
                  or ("::" in s and _FIELD_LINE_RE.match(s))):
            if para:
                break
            continue
        if s and "$$" in s:
            s = _INLINE_DISPLAY_MATH_RE.sub(r"\1", s)  # a formula set inline (`solve $$Ax = b$$ for x`)
        if s:
            if not para:
                listed = bool(item)
            para.append(s)
            size += len(s) + 1
    return clean_summary(" ".join(para), label_first)


def trim(s: str, n: int = SUMMARY_CHARS) -> str:
    """At most n characters, cut after the last sentence that fits (when it keeps a third of them),
    else at a word boundary with an ellipsis: never inside a word that has a space to stop at."""
    s = s.strip()
    if len(s) <= n:
        return s
    end = 0
    for m in _SENTENCE_END_RE.finditer(s, 0, n + 1):  # n + 1: a sentence ending at n is followed by a space
        end = m.end()
    if end >= n // 3:
        return s[:end]
    cut = s[: n - 1]
    if not s[n - 1].isspace() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.") + "…"


def decode(raw: bytes) -> tuple[str | None, str | None]:
    """-> (text, None) or (None, reason to skip). Any bytes that decode as UTF-8 are a note, as in
    Obsidian; NUL characters become U+FFFD so no output carries them (offsets and lines are kept)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8: skipped"
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return text, None


class _OverBudget(Exception):
    pass


class _Budget:
    """The per-note time budget (`note_seconds`), checked between the stages of reading a note:
    every stage is linear, so this only catches what nothing else bounds (a slow disk, a huge note
    on a loaded machine)."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds
        self.seconds = seconds

    def check(self, stage: str) -> None:
        if time.monotonic() > self.end:
            raise _OverBudget(f"took longer than note_seconds ({self.seconds:g} s) to read, at {stage}: skipped")


def content_hash(raw: bytes) -> str:
    import hashlib  # here: loading OpenSSL costs every hook a few ms, and only indexing needs it

    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def parse_note(path: str, raw: bytes, cfg_values: dict[str, Any], size: int | None = None,
               read_private: bool = False) -> Note:
    """One note as the index keeps it. `size`: the file's size when `raw` holds only its first
    max_note_bytes + 1 bytes. A private note keeps only its path (and title, its file name), unless
    `read_private` (a command editing that note's own properties). A note over the per-note time
    budget (`note_seconds`) is kept as skipped, with a warning."""
    budget = _Budget(float(cfg_values.get("note_seconds", 5)))
    try:
        return _parse_note(path, raw, cfg_values, budget, size, read_private)
    except _OverBudget as e:
        title = path.rsplit("/", 1)[-1][:-3]
        note = Note(path=path, title=title, display_title=title, type="note", size=len(raw),
                    hash=content_hash(raw), skipped=True)
        note.private = head_says_private(raw, complete=len(raw) <= cfg_values["max_note_bytes"])
        note.warnings.append(str(e))
        return note


def _parse_note(path: str, raw: bytes, cfg_values: dict[str, Any], budget: _Budget,
                size: int | None = None, read_private: bool = False) -> Note:
    title = path.rsplit("/", 1)[-1][:-3]
    note = Note(path=path, title=title, display_title=title, type="note", size=len(raw),
                hash=content_hash(raw))
    # Decided on the raw text, before any size limit, decoding or YAML parsing can fail (privacy.py).
    if head_says_private(raw, complete=len(raw) <= cfg_values["max_note_bytes"]):
        note.private = True  # nothing it holds is kept: only its path, so that links to it resolve
        if not read_private:
            return note
    if len(raw) > cfg_values["max_note_bytes"]:
        note.skipped = True
        note.warnings.append(f"larger than max_note_bytes ({max(size or 0, len(raw)):,} bytes > "
                             f"{cfg_values['max_note_bytes']:,}): skipped")
        return note
    text, why = decode(raw)
    if text is None:
        note.skipped = True
        note.warnings.append(why)
        return note
    if not text.strip():
        note.warnings.append("empty note")
    budget.check("decoding")
    fm, body, offset = split_frontmatter(text)
    props: dict[str, Any] = {}
    loose: dict[str, str] = {}  # what a frontmatter YAML cannot read says, for search only
    if fm is not None and fm.strip():
        data = simple_yaml(fm)  # first, and without importing yaml (~25 ms of a hook that reindexes a note)
        # what simple_yaml reads is one level of scalars and lists of scalars, at most one value per
        # character of its text: within props_too_big's limits when the text is shorter than them
        small = data is not None and len(fm) < MAX_PROP_VALUES
        if data is None:
            try:
                data = load_yaml(fm)
            except Exception as e:  # yaml.YAMLError and the odd C-loader error
                mark = getattr(e, "problem_mark", None)
                where = f" line {mark.line + 2}" if mark else ""
                problem = getattr(e, "problem", None) or str(e).split("\n")[0]
                note.warnings.append(f"invalid YAML properties ({problem}{where}): properties ignored")
                data = None
                loose = _loose_props(fm)
        budget.check("properties")
        why = props_too_big(data) if not small and isinstance(data, (dict, list)) else None
        if why:
            note.warnings.append(why)  # privacy was decided on the text already (privacy.py)
        elif isinstance(data, dict):
            props = {str(k): v for k, v in data.items()}
        elif data is not None:
            note.warnings.append("properties are not a key: value mapping: ignored")
    if not note.private and props_say_private(props):  # a spelling the text reading did not see
        note.private = True
        if not read_private:
            return Note(path=path, title=title, display_title=title, type="note", size=len(raw),
                        hash=note.hash, private=True)
    note.props = props
    note.body = body
    keep_comments = cfg_values.get("comment_links", True)

    def check():
        budget.check("masking code and comments")

    blocks = L.mask_blocks(body, check)  # what the summary is read from, and the first steps of `masked`
    if "`" in body or "/" in body or props:
        from . import anchors as A

        note.anchors = A.extract_note(blocks, body, props)
    masked = L.mask_spans(blocks, keep_obsidian_comments=keep_comments, check=check)
    note.links = L.extract_property_links(props, cfg_values.get("dialect")) + L.extract_body_links(
        body, offset, masked=masked, dialect=cfg_values.get("dialect"))
    budget.check("links")
    dialect = cfg_values.get("dialect", OBSIDIAN)
    # Logseq's page properties `tags::` and `alias::` are the page's tags and aliases (its docs,
    # "Properties"): `[[A]], [[B c]], #d` or plain words, comma-separated
    page = logseq_page_props(body) if dialect == LOGSEQ and "::" in body[:4000] else {}
    tags = _tag_list(_prop_ci(props, "tags", "tag")) + _logseq_names(page.get("tags", ""))
    tag_text = masked if keep_comments is False else L.OBSIDIAN_COMMENT_RE.sub(L._blank, masked) \
        if "%%" in masked else masked
    tags += L.extract_inline_tags(tag_text)
    seen, uniq = set(), []
    for t in tags:
        key = t.lower()
        if key not in seen and not key.startswith(PLACEHOLDER_TAG_PREFIX):
            seen.add(key)
            uniq.append(t)
    note.tags = uniq
    note.aliases = _str_list(_prop_ci(props, "aliases", "alias"))
    for a in _logseq_names(page.get("alias", "")):
        if a.lower() not in {x.lower() for x in note.aliases}:
            note.aliases.append(a)
    # the title the vault's app shows (dialect.py); an H1 is body text
    note.display_title, names = title_for(path, props, body, dialect,
                                          dialect == PLAIN and _vault_read(cfg_values, _names_files, budget))
    for name in names:
        name = plain_text(name)
        if name and name.lower() not in {a.lower() for a in note.aliases}:
            note.aliases.append(name)
    label_first = dialect == DENDRON
    note.summary = ""
    summary_key = None
    for key in SUMMARY_KEYS:
        value = props.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
            note.summary = clean_summary(str(value), label_first)
            if note.summary:
                # its text is searchable in the summary, unless the summary is a cut of it
                summary_key = key if len(note.summary) >= len(" ".join(str(value).split())) - 1 else None
                break
    meta, meta_span = metadata_block(blocks)
    if not note.summary:
        for key, value in meta:
            if key.lower() in SUMMARY_KEYS and value:
                note.summary = clean_summary(value, label_first)
                summary_key = key if note.summary and len(note.summary) >= len(" ".join(value.split())) - 1 else None
                break
    if not note.summary:
        # the list is properties, not the note's first paragraph
        text = blocks[:meta_span[0]] + blocks[meta_span[1]:] if meta_span else blocks
        text = DATAVIEW_INLINE_RE.sub(" ", text) if "`=" in text or "`$=" in text else text
        note.summary = first_paragraph(text.replace("`", ""), label_first,
                                       _vault_read(cfg_values, _template_prose, budget))
    note.prop_text = property_text(props or loose, masked, summary_key, logseq=dialect == LOGSEQ, fields=meta)
    budget.check("tags and summary")
    ptype = props.get("type")
    note.type = _classify(path, str(ptype).strip().lower() if isinstance(ptype, str) and ptype.strip()
                          else None, note.tags, note.display_title, cfg_values)
    status = props.get("status")
    note.status = str(status).strip().lower() if isinstance(status, (str, int, float)) else None
    project = props.get("project")
    if isinstance(project, list):
        project = project[0] if project else None
    if isinstance(project, str):
        m = L.WIKILINK_RE.search(project)
        project = L.split_wikilink(m.group(2))[0] if m else project
    note.project = project.strip() if isinstance(project, str) and project.strip() else None
    note.created = _date(props.get("created", props.get("date")))
    note.updated = _date(props.get("updated", props.get("modified", props.get("last_validated"))))
    return note


_VAULT_READS: dict[tuple, Any] = {}


def _vault_read(cfg_values: dict[str, Any], read, budget: "_Budget") -> Any:
    """`read(cfg_values)`, what the configured vault says of all its notes (its templates' prose,
    how it names its files), once per process and vault; its time is every note's, not the budget
    of the note that happened to ask first."""
    key = (read, cfg_values.get("vault"), cfg_values.get("cache_dir"), cfg_values.get("dialect"))
    if key not in _VAULT_READS:
        started = time.monotonic()
        _VAULT_READS[key] = read(cfg_values)
        budget.end += time.monotonic() - started
    return _VAULT_READS[key]


def templates_read_afresh(cfg_values: dict[str, Any]) -> str:
    """Read the vault's templates' prose again (every note's summary skips it: first_paragraph), for
    this process's next notes too, -> a fingerprint of it: a sync that finds it changed reads every
    note again, as a rebuild would."""
    import hashlib

    key = (_template_prose, cfg_values.get("vault"), cfg_values.get("cache_dir"), cfg_values.get("dialect"))
    prose = _VAULT_READS[key] = _template_prose(cfg_values)
    return hashlib.sha1("\n".join(sorted(prose)).encode()).hexdigest()


def _names_files(cfg_values: dict[str, Any]) -> bool:
    """dialect.names_files for the configured plain vault (decided at its index build, kept in its
    cache dir)."""
    vault, cache = cfg_values.get("vault"), cfg_values.get("cache_dir")
    if vault and not cache:
        from ..core.config import default_cache_dir

        cache = str(default_cache_dir(os.path.abspath(os.path.expanduser(vault))))
    return names_files(vault, os.path.abspath(os.path.expanduser(cache)) if cache else None)


def _template_prose(cfg_values: dict[str, Any]) -> frozenset[str]:
    """appsettings.template_prose of the configured vault."""
    vault = cfg_values.get("vault")
    return template_prose(os.path.expanduser(vault) if vault else None, str(cfg_values.get("dialect") or OBSIDIAN))


def is_authored_hub(path: str, ptype: str | None, tags: list[str], title: str, cfg: dict) -> bool:
    types, hub_tags, folders, rx = _hub_rules(cfg)
    if ptype in types:
        return True
    for t in tags:  # loops and a tuple for startswith, not any() over generators: twice per note
        if t.lower() in hub_tags:
            return True
    if path.startswith(folders):
        return True
    name = path.rsplit("/", 1)[-1][:-3]
    return bool(rx and (rx.match(name) or rx.match(title)))


_rules_cache: dict[tuple, tuple] = {}


def _hub_rules(cfg: dict) -> tuple:
    """The hub settings as is_authored_hub tests them (lowercased sets, folder prefixes, one regex),
    made once per distinct setting: it runs twice for every note of a rebuild."""
    key = (tuple(cfg["hub_types"]), tuple(cfg["hub_tags"]), tuple(cfg["hub_folders"]),
           tuple(cfg["hub_title_patterns"]))
    rules = _rules_cache.get(key)
    if rules is None:
        types, tags, folders, patterns = key
        rules = _rules_cache[key] = (
            {t.lower() for t in types}, {t.lower() for t in tags},
            tuple(f.strip("/") + "/" for f in folders if f.strip("/")), _title_rx(patterns))
    return rules


_rx_cache: dict[tuple, re.Pattern | None] = {}


def _title_rx(patterns: tuple) -> re.Pattern | None:
    if patterns not in _rx_cache:
        _rx_cache[patterns] = re.compile("|".join(fnmatch.translate(p) for p in patterns)) if patterns else None
    return _rx_cache[patterns]


_DAILY_MEMO: dict = {}  # (vault, dialect) -> the app's daily-notes settings, read once per process


def _app_daily_note(path: str, cfg: dict) -> bool:
    """A daily note as the vault's app names them (vault/appsettings.py): a journal, as the plugin's
    own journal folder is."""
    dialect = cfg.get("dialect") or "plain"
    if dialect == "plain":
        return False
    from . import appsettings  # only vaults an app has marked need it

    key = (cfg.get("vault"), dialect)
    if key not in _DAILY_MEMO:
        _DAILY_MEMO[key] = appsettings.daily_notes(key[0], dialect)
    return appsettings.is_daily_note(path, _DAILY_MEMO[key], dialect)


def _classify(path: str, ptype: str | None, tags: list[str], title: str, cfg: dict) -> str:
    jf = cfg["journal_folder"].strip("/")
    if ptype:
        return "hub" if ptype == "moc" else ptype
    if jf and path.startswith(jf + "/") or _app_daily_note(path, cfg):
        return "journal"
    prefix = cfg["convention_tag_prefix"].lower()
    for t in tags:
        t = t.lower()
        if t == prefix or t.startswith(prefix + "/"):
            return "convention"
    if is_authored_hub(path, None, tags, title, cfg):
        return "hub"
    return "note"


def read_note(vf: VaultFile, cfg_values: dict[str, Any]) -> Note:
    try:
        # read(n) allocates n bytes up front: ask for the size the scan saw (+1, to notice a file
        # that grew since), and only past that for the rest up to the limit. os.read, not open():
        # no file object per note (a tenth of a rebuild's reading time).
        cap = cfg_values["max_note_bytes"] + 1
        fd = os.open(vf.abspath, os.O_RDONLY)
        try:
            raw = os.read(fd, min(vf.size + 1, cap))
            while vf.size < len(raw) < cap:
                more = os.read(fd, cap - len(raw))
                if not more:
                    break
                raw += more
        finally:
            os.close(fd)
    except OSError as e:
        n = Note(path=vf.path, title=vf.path.rsplit("/", 1)[-1][:-3],
                 display_title=vf.path.rsplit("/", 1)[-1][:-3], type="note", skipped=True)
        n.warnings.append(f"cannot be read ({e.strerror}): skipped")
        return n
    note = parse_note(vf.path, raw, cfg_values, size=vf.size)
    note.mtime_ns, note.size = vf.mtime_ns, max(vf.size, len(raw))
    return note


def iter_notes(files: dict[str, VaultFile], cfg_values: dict[str, Any]) -> Iterator[Note]:
    for vf in files.values():
        yield read_note(vf, cfg_values)
