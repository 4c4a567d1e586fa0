"""Link and tag extraction (what Obsidian counts) and Obsidian's link resolution."""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import unquote

FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
OBSIDIAN_COMMENT_RE = re.compile(r"%%.*?(?:%%|\Z)", re.S)
INLINE_CODE_RE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
WIKILINK_RE = re.compile(r"(?<!\\)(!?)\[\[([^\[\]\n]*?)\]\]")
MDLINK_RE = re.compile(r"(?<![\\\]])(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*(<[^<>\n]+>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
INLINE_FIELD_RE = re.compile(r"^\s*(?:[-*+]\s+)?\**([\w][\w \-/]*?)\**::(.*)$")
# Obsidian tags: '#' at line start or after whitespace; letters (any script), digits, _ - / ;
# not all digits.
TAG_RE = re.compile(r"(?:(?<=\s)|^)#([^\s!\"#$%&'()*+,.:;<=>?@\[\\\]^`{|}~]+)", re.M)


@dataclass(slots=True)
class RawLink:
    kind: str          # link | embed | mdlink | property
    linkpath: str      # the target as written, without #subpath (may be "" for [[#Heading]])
    subpath: str       # "#Heading", "#^block", "#H1#H2" or ""
    display: str
    line: int
    prop: str | None = None   # property key (frontmatter or Dataview inline field)


def _blank(m: re.Match) -> str:
    # keep newlines so line numbers survive masking
    return re.sub(r"[^\n]", " ", m.group(0))


def mask_non_content(body: str, *, keep_obsidian_comments: bool = True, inline_code: bool = True) -> str:
    """Blank out fenced code, inline code and HTML comments (and %% %% if asked)."""
    if "```" in body or "~~~" in body:
        out, fence = [], None
        for line in body.split("\n"):
            m = FENCE_RE.match(line)
            if fence is None:
                if m:
                    fence = m.group(1)
                    out.append("")
                    continue
                out.append(line)
            else:
                if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                        and not line.strip()[len(m.group(1)):].strip():
                    fence = None
                out.append(" " * len(line))
        body = "\n".join(out)
    if "<!--" in body:
        body = HTML_COMMENT_RE.sub(_blank, body)
    if inline_code and "`" in body:
        body = INLINE_CODE_RE.sub(_blank, body)
    if not keep_obsidian_comments and "%%" in body:
        body = OBSIDIAN_COMMENT_RE.sub(_blank, body)
    return body


def split_wikilink(inner: str) -> tuple[str, str, str]:
    """'Name#H|shown' -> ('Name', '#H', 'shown'); handles the table form 'Name\\|shown'."""
    target, _, display = inner.partition("|")
    target = target.rstrip("\\").strip()
    linkpath, hashmark, sub = target.partition("#")
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


def extract_body_links(body: str, line_offset: int = 0, *, masked: str | None = None) -> list[RawLink]:
    masked = masked if masked is not None else mask_non_content(body)
    links: list[RawLink] = []
    if "[" not in masked:
        return links
    lines = _Lines(masked)
    fields: dict[int, str] = {}
    if "::" in masked:
        for i, line in enumerate(masked.split("\n")):
            m = INLINE_FIELD_RE.match(line)
            if m and "[[" in m.group(2):
                fields[i + 1] = m.group(1).strip().lower()
    for m in WIKILINK_RE.finditer(masked):
        linkpath, sub, display = split_wikilink(m.group(2))
        if not linkpath and not sub:
            continue
        line = lines.at(m.start())
        prop = fields.get(line)
        kind = "property" if prop else ("embed" if m.group(1) else "link")
        links.append(RawLink(kind, linkpath, sub, display, line + line_offset, prop))
    if "](" in masked:
        no_wiki = WIKILINK_RE.sub(_blank, masked) if "[[" in masked else masked
        for m in MDLINK_RE.finditer(no_wiki):
            dest = m.group(3)
            if dest.startswith("<"):
                dest = dest[1:-1]
            if SCHEME_RE.match(dest) or dest.startswith("#") or dest.startswith("//"):
                continue
            dest = unquote(dest)
            linkpath, hashmark, sub = dest.partition("#")
            if not linkpath:
                continue
            line = lines.at(m.start())
            links.append(RawLink("embed" if m.group(1) else "mdlink", linkpath.strip(),
                                 (hashmark + sub).strip(), m.group(2).strip(), line + line_offset))
    return links


def extract_property_links(props: dict) -> list[RawLink]:
    out: list[RawLink] = []

    def walk(key: str, value) -> None:
        if isinstance(value, str):
            if "[[" in value:
                for m in WIKILINK_RE.finditer(value):
                    linkpath, sub, display = split_wikilink(m.group(2))
                    if linkpath or sub:
                        out.append(RawLink("property", linkpath, sub, display, 0, key))
        elif isinstance(value, list):
            for v in value:
                walk(key, v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(key, v)

    for k, v in props.items():
        if str(k).lower() in ("tags", "tag", "aliases", "alias", "cssclasses"):
            continue
        walk(str(k).lower(), v)
    return out


def extract_inline_tags(masked: str) -> list[str]:
    if "#" not in masked:
        return []
    tags = []
    for m in TAG_RE.finditer(masked):
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


def keys_for_file(path: str) -> set[str]:
    """Link keys whose resolution may change when `path` appears or disappears."""
    base = _fold(path.rsplit("/", 1)[-1])
    keys = {base}
    if base.endswith(".md"):
        keys.add(base[:-3])
    return keys


def file_name_lc(path: str) -> str:
    return path.rsplit("/", 1)[-1].lower()


class Resolver:
    """Obsidian's getLinkpathDest over a fixed set of vault files."""

    def __init__(self, paths, aliases: dict[str, str] | None = None):
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_path: dict[str, str] = {}
        for p in paths:
            self.add(p)
        self.aliases = aliases or {}

    def add(self, p: str) -> None:
        self.by_name[file_name_lc(p)].append(p)
        self.by_path[p.lower()] = p

    def resolve(self, linkpath: str, src: str) -> tuple[str | None, bool]:
        """-> (target vault path or None when dangling, ambiguous?)."""
        if not linkpath:
            return src, False
        lp = linkpath.replace("\\", "/")
        if lp.startswith("./") or lp.startswith("../"):
            base = src.rsplit("/", 1)[0] if "/" in src else ""
            parts = [x for x in base.split("/") if x]
            for seg in lp.split("/"):
                if seg == "..":
                    if not parts:
                        return None, False
                    parts.pop()
                elif seg not in (".", ""):
                    parts.append(seg)
            rel = "/".join(parts).lower()
            hit = self.by_path.get(rel) or self.by_path.get(rel + ".md")
            if hit:
                return hit, False
            lp = "/".join(parts)
        lp = lp.lstrip("/")
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
                    return hit, False
            return None, False
        if name == n and len(cands) == 1:
            return cands[0], False
        for c in cands:
            if c.lower() == n:
                return c, False
        src_dir = src.rsplit("/", 1)[0].lower() if "/" in src else ""
        near = sorted((c for c in cands if c.lower().endswith(n) and c.lower().startswith(src_dir)),
                      key=lambda c: (len(c), c))
        far = sorted((c for c in cands if c.lower().endswith(n) and not c.lower().startswith(src_dir)),
                     key=lambda c: (len(c), c))
        order = near + far
        if not order:
            return None, False
        ambiguous = len(order) > 1 and ((order[0] in near) == (order[1] in near))
        return order[0], ambiguous
