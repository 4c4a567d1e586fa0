"""Link and tag extraction (what Obsidian counts) and Obsidian's link resolution.

A Dendron vault (dialect "dendron") writes its links the other way round: `[[label|target]]` puts the
label first, and `dendron://vault/note` names a note of a vault of the workspace (`label_first`).
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import unquote

FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
# Comments run to their end or to the end of the note: one lazy scan from each opener, never twice.
HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
OBSIDIAN_COMMENT_RE = re.compile(r"%%.*?(?:%%|\Z)", re.S)
BACKTICKS_RE = re.compile(r"`+")
# A newline followed by a line that starts a new block: a code span never crosses one (CommonMark:
# blank line, list item, block quote, ATX heading, thematic break; fence lines are blank by then).
_BLOCK_START = (r"(?:[ \t]*+(?:\n|$)|[ \t]{0,3}+(?:[-*+](?:[ \t]|$)|\d{1,9}+[.)](?:[ \t]|$)|>|#{1,6}+(?:[ \t]|$)"
                r"|(?:(?:\*[ \t]*+){3,}|(?:-[ \t]*+){3,}|(?:_[ \t]*+){3,})$))")
# Tokens for code spans: a backtick string (group 1 holds all but its first backtick), or a block
# boundary with everything up to the next backtick (so a stretch of lines without backticks is one
# token, however many blocks it holds). Both open with a literal: the regex engine scans for the two
# characters instead of trying the pattern at each one.
CODE_TOKEN_RE = re.compile(r"`(`*+)|\n(?=" + _BLOCK_START + r")[^`]*+", re.M)
HEADING_RE = re.compile(r"[ \t]{0,3}+#{1,6}+(?:[ \t]|$)", re.M)
# Possessive quantifiers (`*+`, `++`): a failed match never backtracks, so every pattern below costs
# time linear in the text however many unclosed `[[`, `[x](` or `\[` it holds.
WIKILINK_RE = re.compile(r"(?<!\\)(!?)\[\[([^\[\]\n]*+)\]\]")
# The same link without its look-behind: a pattern that opens with a literal is searched for by
# the regex engine's fast literal scan instead of being tried at every position (10× faster over
# a vault); iter_wikilinks applies the look-behind by hand and yields exactly WIKILINK_RE's matches.
_BRACKETS_RE = re.compile(r"\[\[([^\[\]\n]*+)\]\]")
MDLINK_RE = re.compile(r"(?<![\\\]])(!?)\[((?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+)\]\(\s*+"
                       r"(<[^<>\n]++>|[^\s()]++(?:\([^\s()]*+\)[^\s()]*+)*+)"
                       r"(?:\s++(?:\"[^\"\n]*+\"|'[^'\n]*+'))?\s*+\)")
# The same link without its look-behind and with `(?:!\[|\[)` for `(!?)\[`, so the regex engine's fast
# scan finds its first character; iter_mdlinks applies the look-behind by hand and yields exactly
# MDLINK_RE's matches. Groups: text, destination. Compiled on first use (re's cache), not when a
# hook imports the module.
_MDLINK_AT = (r"(?:!\[|\[)((?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+)\]\(\s*+"
              r"(<[^<>\n]++>|[^\s()]++(?:\([^\s()]*+\)[^\s()]*+)*+)"
              r"(?:\s++(?:\"[^\"\n]*+\"|'[^'\n]*+'))?\s*+\)")
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
INLINE_FIELD_RE = re.compile(r"^\s*(?:[-*+]\s+)?\**([\w][\w \-/]*?)\**::(.*)$")
# Obsidian tags: '#' at line start or after whitespace; letters (any script), digits, _ - / ;
# not all digits.
TAG_RE = re.compile(r"(?:(?<=\s)|^)#([^\s!\"#$%&'()*+,.:;<=>?@\[\\\]^`{|}~]+)", re.M)
# TAG_RE without its look-behind, for the same fast scan; extract_inline_tags checks the character
# before each '#' itself (a tag's characters hold no space and no '#', so nothing is skipped).
_HASH_RE = re.compile(r"#([^\s!\"#$%&'()*+,.:;<=>?@\[\\\]^`{|}~]+)")


@dataclass(slots=True)
class RawLink:
    kind: str          # link | embed | mdlink | property
    linkpath: str      # the target as written, without #subpath (may be "" for [[#Heading]])
    subpath: str       # "#Heading", "#^block", "#H1#H2" or ""
    display: str
    line: int
    prop: str | None = None   # property key (frontmatter or Dataview inline field)


def _blank(m: re.Match) -> str:
    return _blanked(m.group(0))


def _blanked(text: str) -> str:
    """Every character but newlines turned to a space (line numbers survive masking): what
    re.sub(r"[^\n]", " ", text) gives, a line at a time instead of a match per character."""
    return "\n".join(" " * len(line) for line in text.split("\n"))


# A fence-like line with the newline before it (_mask_fences puts one before the text), not `^` under
# re.M, which the regex engine tries at every character: a literal first is found by its fast scan.
FENCE_LINE_RE = re.compile(r"\n[ \t]{0,3}+(`{3,}+|~{3,}+)([^\n]*+)")


def _mask_fences(body: str, check=None) -> str:
    """Fenced code blanked: the opening line emptied, the rest (closing line too) turned to spaces,
    newlines kept; an unclosed fence runs to the end. Only fence-like lines are visited."""
    parts, last, fence, open_end = [], 0, None, 0
    for k, m in enumerate(FENCE_LINE_RE.finditer("\n" + body)):
        if check is not None and not k & 0x3FFF:
            check()
        start, end = m.start(), m.end() - 1  # the line's start and end in `body`
        if fence is None:
            fence = m.group(1)
            parts.append(body[last:start])
            last = open_end = end
        elif m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            parts.append(_blanked(body[open_end:end]))
            last, fence = end, None
    if fence is not None:
        parts.append(_blanked(body[open_end:]))
        last = len(body)
    parts.append(body[last:])
    return "".join(parts)


def mask_non_content(body: str, *, keep_obsidian_comments: bool = True, inline_code: bool = True,
                     check=None) -> str:
    """Blank out fenced code, inline code and HTML comments (and %% %% if asked). `check()`, when
    given, is called every few thousand fence lines or backtick strings (a time budget may raise)."""
    return mask_spans(mask_blocks(body, check), keep_obsidian_comments=keep_obsidian_comments,
                      inline_code=inline_code, check=check)


def mask_blocks(body: str, check=None) -> str:
    """mask_non_content's first steps: fenced code and HTML comments blanked."""
    if "```" in body or "~~~" in body:
        body = _mask_fences(body, check)
    if "<!--" in body:
        body = HTML_COMMENT_RE.sub(_blank, body)
    return body


def mask_spans(body: str, *, keep_obsidian_comments: bool = True, inline_code: bool = True,
               check=None) -> str:
    """mask_non_content's last steps, on what mask_blocks returned: inline code (and %% %% if asked)."""
    if inline_code and "`" in body:
        body = mask_code_spans(body, check)
    if not keep_obsidian_comments and "%%" in body:
        body = OBSIDIAN_COMMENT_RE.sub(_blank, body)
    return body


def _pair_runs(text: str, found: list[tuple[int, int]], start: int, out: list[tuple[int, int]]) -> None:
    """CommonMark code spans among the backtick strings `found` of one block (which starts at
    `start`), appended to `out` as (start, end): a backtick string opens a span closed by the next
    one of the same length; an opener that has none is literal. Linear: per length, closers are
    looked up in increasing order."""
    if len(found) < 2:
        return
    runs: dict[int, list[int]] = {}
    for i, (a, b) in enumerate(found):
        runs.setdefault(b - a, []).append(i)
    nxt = dict.fromkeys(runs, 0)   # per length: the first run index not yet passed
    i = 0
    while i < len(found):
        pos, e = found[i]
        n = e - pos
        if pos > start and text[pos - 1] == "\\":  # an escaped backtick is literal; the rest may open
            k, j = pos - 1, 0
            while k >= start and text[k] == "\\":
                k, j = k - 1, j + 1
            if j % 2:
                pos, n = pos + 1, n - 1
        lst = runs.get(n)
        closer = None
        if n and lst:
            c = nxt[n]
            while c < len(lst) and lst[c] <= i:
                c += 1
            nxt[n] = c
            closer = lst[c] if c < len(lst) else None
        if closer is None:
            i += 1
            continue
        out.append((pos, found[closer][1]))
        i = closer + 1


def _pairs(text: str, block: list[tuple[int, int]], start: int, simple: bool,
           out: list[tuple[int, int]]) -> None:
    if len(block) < 2:
        return
    if simple:  # single unescaped backticks pair up in order
        out.extend((block[j][0], block[j + 1][1]) for j in range(0, len(block) - 1, 2))
    else:
        _pair_runs(text, block, start, out)


def mask_code_spans(body: str, check=None) -> str:
    """Blank out inline code spans (newlines kept), block by block: a span never crosses a blank
    line, a list item's start, a block quote line's start or a heading. Linear: the regex engine
    scans the text once; Python work is per backtick string and per block boundary before one."""
    if body.count("`") < 2:
        return body
    simple = body.find("``") < 0 and body.find("\\`") < 0
    spans: list[tuple[int, int]] = []
    block: list[tuple[int, int]] = []
    block_start = 0
    limit = -1          # when the block is a heading: where its line ends
    need_line = True    # the next backtick string starts a block: is its line a heading?
    for k, m in enumerate(CODE_TOKEN_RE.finditer(body)):
        if check is not None and not k & 0x3FFF:
            check()
        if m.group(1) is None:  # a block boundary
            _pairs(body, block, block_start, simple, spans)
            block, block_start, need_line, limit = [], m.start() + 1, True, -1
            continue
        a = m.start()
        if limit >= 0 and a > limit:  # past the end of a heading line: a new block
            _pairs(body, block, block_start, simple, spans)
            block, block_start, limit = [], limit + 1, -1
        if need_line:
            ls = body.rfind("\n", block_start, a)
            ls = block_start if ls < 0 else ls + 1
            if HEADING_RE.match(body, ls):
                nl = body.find("\n", a)
                limit = len(body) if nl < 0 else nl
            need_line = False
        block.append(m.span())
    _pairs(body, block, block_start, simple, spans)
    return _blank_spans(body, spans) if spans else body


def _blank_spans(text: str, spans) -> str:
    """`text` with each (start, end) of `spans` (in order, not overlapping) blanked, newlines kept."""
    parts, last = [], 0
    for a, b in spans:
        parts.append(text[last:a])
        parts.append(" " * (b - a) if text.find("\n", a, b) < 0 else _blanked(text[a:b]))
        last = b
    parts.append(text[last:])
    return "".join(parts)


DENDRON_URI = "dendron://"


def label_first(dialect: str | None) -> bool:
    """Whether the vault's app writes `[[label|target]]` (Dendron) rather than `[[target|label]]`."""
    return dialect == "dendron"  # vault.dialect.DENDRON (that module is not imported by every hook)


def split_wikilink(inner: str, label_first: bool = False) -> tuple[str, str, str]:
    """'Name#H|shown' -> ('Name', '#H', 'shown'); handles the table form 'Name\\|shown'.
    `label_first` (Dendron): 'shown|Name#H' -> ('Name', '#H', 'shown'), and a cross-vault
    'dendron://vault/Name' is the note 'Name' (the vault name is Dendron's, a path is never in it)."""
    if label_first and "|" in inner:
        display, _, target = inner.partition("|")
        display = display.rstrip("\\")
    else:
        target, _, display = inner.partition("|")
        target = target.rstrip("\\")
    linkpath, hashmark, sub = target.strip().partition("#")
    if label_first and linkpath.startswith(DENDRON_URI):
        linkpath = linkpath[len(DENDRON_URI):].partition("/")[2]
    return linkpath.strip(), (hashmark + sub).strip(), display.strip()


class _Lines:
    """Line numbers for increasing offsets, counting newlines once."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def iter_wikilinks(text: str):
    """(start, end, embed, inner) of every WIKILINK_RE match of `text`, in order, the same matches
    as WIKILINK_RE.finditer (tests/test_links.py holds the two equal)."""
    for m in _BRACKETS_RE.finditer(text):
        q = m.start()
        before = text[q - 1] if q else ""
        if before == "!" and (q < 2 or text[q - 2] != "\\"):
            yield q - 1, m.end(), True, m.group(1)
        elif before != "\\":
            yield q, m.end(), False, m.group(1)


def iter_mdlinks(text: str):
    """(start, end, embed, text, destination) of every MDLINK_RE match of `text`, in order, the same
    matches as MDLINK_RE.finditer (tests/test_links.py holds the two equal)."""
    search, pos = re.compile(_MDLINK_AT).search, 0
    while (m := search(text, pos)) is not None:
        q = m.start()
        if q and text[q - 1] in "\\]":  # MDLINK_RE's look-behind fails here: it tries the next position
            pos = q + 1
            continue
        yield q, m.end(), text[q] == "!", m.group(1), m.group(2)
        pos = m.end()


def extract_body_links(body: str, line_offset: int = 0, *, masked: str | None = None,
                       dialect: str | None = None) -> list[RawLink]:
    """Wikilinks, embeds and markdown links of a note's body; `dialect`: the vault's app
    (cfg.values["dialect"]): in a Dendron vault a wikilink puts its label first (split_wikilink)."""
    first = label_first(dialect)
    masked = masked if masked is not None else mask_non_content(body)
    links: list[RawLink] = []
    tag_links = _logseq_tag_links(masked, line_offset) if dialect == LOGSEQ and "#" in masked else []
    if "[" not in masked:
        return tag_links
    lines = _Lines(masked)
    fields: dict[int, str] = {}
    if "::" in masked:
        for i, line in enumerate(masked.split("\n")):
            m = INLINE_FIELD_RE.match(line)
            if m and "[[" in m.group(2):
                fields[i + 1] = m.group(1).strip().lower()
    md = "](" in masked
    wiki_spans: list[tuple[int, int]] = []  # where the wikilinks are, blanked before markdown links are looked for
    for start, end, embed, inner in iter_wikilinks(masked):
        if md:
            wiki_spans.append((start, end))
        linkpath, sub, display = split_wikilink(inner, first)
        if not linkpath and not sub:
            continue
        line = lines.at(start)
        prop = fields.get(line)
        kind = "property" if prop else ("embed" if embed else "link")
        links.append(RawLink(kind, linkpath, sub, display, line + line_offset, prop))
    if md:
        # WIKILINK_RE.sub(_blank, masked), from the matches found above
        no_wiki = _blank_spans(masked, wiki_spans) if wiki_spans else masked
        for start, _end, embed, label, dest in iter_mdlinks(no_wiki):
            if dest.startswith("<"):
                dest = dest[1:-1]
            if SCHEME_RE.match(dest) or dest.startswith("#") or dest.startswith("//"):
                continue
            # the heading is what follows a written `#`; an escaped one (`%23`) is part of the name
            linkpath, hashmark, sub = dest.partition("#")
            linkpath, sub = unquote(linkpath), unquote(sub)
            if not linkpath:
                continue
            line = lines.at(start)
            links.append(RawLink("embed" if embed else "mdlink", linkpath.strip(),
                                 (hashmark + sub).strip(), label.strip(), line + line_offset))
    if tag_links:
        links = sorted(links + tag_links, key=lambda ln: ln.line)  # stable: a line's own order kept
    return links


def _logseq_tag_links(masked: str, line_offset: int) -> list[RawLink]:
    """Logseq's `#tag`: a reference to the page `tag`, as `[[tag]]` is (Logseq's docs, "Tags": "a tag
    is a page reference"); `#[[Multi Word]]` is the wikilink it wraps, found with the others."""
    lines = _Lines(masked)
    out = []
    for m in _HASH_RE.finditer(masked):
        at = m.start()
        if at and not masked[at - 1].isspace():  # TAG_RE's (?<=\s)|^, as extract_inline_tags
            continue
        t = m.group(1).rstrip("/-")
        if t and any(not c.isdigit() for c in t.replace("/", "")):
            out.append(RawLink("link", t, "", "", lines.at(at) + line_offset))
    return out


def extract_property_links(props: dict, dialect: str | None = None) -> list[RawLink]:
    """Wikilinks in property values, in document order; iterative (no recursion limit) and each
    value visited once per place it appears (notes.props_too_big bounds how many places).
    `dialect` as for extract_body_links."""
    first = label_first(dialect)
    out: list[RawLink] = []
    for k, v in props.items():
        key = str(k).lower()
        if key in ("tags", "tag", "aliases", "alias", "cssclasses"):
            continue
        stack = [v]
        while stack:
            value = stack.pop()
            if isinstance(value, str):
                if "[[" in value:
                    for m in WIKILINK_RE.finditer(value):
                        linkpath, sub, display = split_wikilink(m.group(2), first)
                        if linkpath or sub:
                            out.append(RawLink("property", linkpath, sub, display, 0, key))
            elif isinstance(value, list):
                stack.extend(reversed(value))
            elif isinstance(value, dict):
                stack.extend(reversed(list(value.values())))
    return out


def extract_inline_tags(masked: str) -> list[str]:
    if "#" not in masked:
        return []
    tags = []
    for m in _HASH_RE.finditer(masked):
        at = m.start()
        if at and not masked[at - 1].isspace():  # TAG_RE's (?<=\s)|^ (a newline is a space)
            continue
        t = m.group(1).rstrip("/-")
        if t and not t.replace("/", "").isdigit() and any(not c.isdigit() for c in t):
            tags.append(t)
    return tags


def _fold(s: str) -> str:
    # lower() applies Greek final sigma by context ("Σ" -> "ς" or "σ"): fold both for keys
    return s.lower().replace("ς", "σ")


def name_key(linkpath: str) -> str:
    """The lookup key a link depends on: its folded base name, without `.md`."""
    key = _fold(linkpath.replace("\\", "/").rsplit("/", 1)[-1])
    return key[:-3] if key.endswith(".md") else key


def keys_for_file(path: str, dialect: str | None = None) -> set[str]:
    """Link keys whose resolution may change when `path` appears or disappears."""
    base = _fold(path.rsplit("/", 1)[-1])
    keys = {base}
    if base.endswith(".md"):
        keys.add(base[:-3])
        if dialect == LOGSEQ:  # links name the page the file holds (file_name_lc)
            keys.add(name_key(file_name_lc(path, dialect)))
    return keys


LOGSEQ = "logseq"  # vault.dialect.LOGSEQ


def file_name_lc(path: str, dialect: str | None = None) -> str:
    """The name a link finds the file by, lowercased: its file name; in a Logseq vault a note's is
    the name of the page it holds with `.md` (`a___b.md` holds page `a/b`, `x%3A y.md` page `x: y`:
    dialect.logseq_page_name), as Logseq resolves `[[a/b]]` and `[[x: y]]` by page name."""
    if dialect == LOGSEQ and path[-3:].lower() == ".md":
        from .dialect import logseq_page_name

        return logseq_page_name(path).lower() + ".md"
    return path.rsplit("/", 1)[-1].lower()


class Resolver:
    """Obsidian's getLinkpathDest over a fixed set of vault files. With `memo` (a rebuild, whose
    files and aliases stay as they are while its links are resolved) the resolutions that do not
    depend on the linking note are kept by link path: most of a vault's links repeat a name."""

    def __init__(self, paths, aliases: dict[str, str] | None = None, memo: bool = False,
                 dialect: str | None = None):
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_path: dict[str, str] = {}
        self.memo: dict[str, tuple[str | None, bool]] | None = {} if memo else None
        # Logseq: a link names a page (`[[a/b]]`, `[[x: y]]`), looked up whole before as a path
        self.pages = dialect == LOGSEQ
        self.dialect = dialect
        for p in paths:
            self.add(p)
        self.aliases = aliases or {}

    def add(self, p: str) -> None:
        self.by_name[file_name_lc(p, self.dialect)].append(p)
        self.by_path[p.lower()] = p
        if self.memo:
            self.memo.clear()

    def resolve(self, linkpath: str, src: str) -> tuple[str | None, bool]:
        """-> (target vault path or None when dangling, ambiguous?)."""
        if not linkpath:
            return src, False
        memo = self.memo
        if memo is not None:
            hit = memo.get(linkpath)
            if hit is not None:
                return hit
        target, ambiguous, by_src = self._resolve(linkpath, src)
        if memo is not None and not by_src:
            memo[linkpath] = (target, ambiguous)
        return target, ambiguous

    def _resolve(self, linkpath: str, src: str) -> tuple[str | None, bool, bool]:
        """-> (target, ambiguous?, whether the answer depends on where `src` is)."""
        lp = linkpath.replace("\\", "/")
        if lp.startswith("./") or lp.startswith("../"):
            base = src.rsplit("/", 1)[0] if "/" in src else ""
            parts = [x for x in base.split("/") if x]
            for seg in lp.split("/"):
                if seg == "..":
                    if not parts:
                        return None, False, True
                    parts.pop()
                elif seg not in (".", ""):
                    parts.append(seg)
            rel = "/".join(parts).lower()
            hit = self.by_path.get(rel) or self.by_path.get(rel + ".md")
            if hit:
                return hit, False, True
            target, ambiguous, _ = self._by_name("/".join(parts), linkpath, src)
            return target, ambiguous, True
        return self._by_name(lp, linkpath, src)

    def _by_name(self, lp: str, linkpath: str, src: str) -> tuple[str | None, bool, bool]:
        lp = lp.lstrip("/")
        if self.pages:
            cands = self.by_name.get(lp.lower() + ".md")
            if cands:  # the page of that name (a page and a journal of one name: the first by path)
                order = sorted(cands)
                return order[0], len(order) > 1, False
        n = lp.lower()
        name = n.rsplit("/", 1)[-1]
        cands = self.by_name.get(name) if "." in name else None
        if not cands:
            n = (lp + ".md").lower()
            name = n.rsplit("/", 1)[-1]
            cands = self.by_name.get(name)
        if not cands:
            if self.aliases:
                hit = self.aliases.get(linkpath.lower())
                if hit:
                    return hit, False, False
            return None, False, False
        if name == n and len(cands) == 1:
            return cands[0], False, False
        for c in cands:
            if c.lower() == n:
                return c, False, False
        src_dir = src.rsplit("/", 1)[0].lower() if "/" in src else ""
        near = sorted((c for c in cands if c.lower().endswith(n) and c.lower().startswith(src_dir)),
                      key=lambda c: (len(c), c))
        far = sorted((c for c in cands if c.lower().endswith(n) and not c.lower().startswith(src_dir)),
                     key=lambda c: (len(c), c))
        order = near + far
        if not order:
            return None, False, True
        ambiguous = len(order) > 1 and ((order[0] in near) == (order[1] in near))
        return order[0], ambiguous, True
