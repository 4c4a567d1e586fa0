"""What gets embedded: a note cut into chunks of its title, heading path and ~200-token windows.

Pure text (no numpy, no model): the same note always gives the same chunks, so a chunk's hash says
whether its vector can be reused.
"""
from __future__ import annotations

import hashlib
import re
from typing import NamedTuple

# ~200 WordPiece tokens: English prose runs at about 1.3 tokens a word, so 150 words, with a
# 30-word overlap so a sentence cut by a window edge is whole in one of the two windows.
WINDOW_WORDS = 150
OVERLAP_WORDS = 30
# A note past this many windows (a book pasted into the vault) is embedded by its first ones
# only: more would cost minutes of background work for one note and rarely change its best chunk.
MAX_CHUNKS = 40

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")
_MDLINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_WORD = re.compile(r"\S+")


class Chunk(NamedTuple):
    heading: str   # the heading path inside the note ("Setup › Linux"), "" before the first heading
    text: str      # what the model reads
    start: int     # character span of the window in the note's body (for snippets)
    end: int


def _clean(s: str) -> str:
    s = _WIKILINK.sub(lambda m: m.group(2) or m.group(1).rsplit("/", 1)[-1], s)
    s = _MDLINK.sub(lambda m: m.group(1), s)
    return " ".join(s.split())


def _sections(body: str) -> list[tuple[list[str], int, int]]:
    """(heading path, start, end) of the text under each heading; headings in code fences are text."""
    out: list[tuple[list[str], int, int]] = []
    path: list[tuple[int, str]] = []
    start, pos, fence = 0, 0, None
    for line in body.splitlines(keepends=True):
        f = _FENCE.match(line)
        if f:
            mark = f.group(1)[0]
            fence = None if fence == mark else (fence or mark)
        m = None if fence or f else _HEADING.match(line.rstrip("\r\n"))
        if m:
            out.append(([h for _, h in path], start, pos))
            level = len(m.group(1))
            path = [(lv, h) for lv, h in path if lv < level] + [(level, _clean(m.group(2)))]
            start = pos + len(line)
        pos += len(line)
    out.append(([h for _, h in path], start, len(body)))
    return out


def chunk_note(title: str, summary: str, body: str) -> list[Chunk]:
    """At least one chunk (the title alone, for a note with no text); the first carries the summary."""
    chunks: list[Chunk] = []
    summary = _clean(summary or "")
    for path, s, e in _sections(body):
        if path and path[0].casefold() == title.casefold():
            path = path[1:]  # the note's own H1 repeats its title
        words = [(m.start(), m.end()) for m in _WORD.finditer(body, s, e)]
        step = WINDOW_WORDS - OVERLAP_WORDS
        for i in range(0, max(len(words) - OVERLAP_WORDS, 1), step):
            win = words[i:i + WINDOW_WORDS]
            if not win:
                break
            a, b = win[0][0], win[-1][1]
            text = _clean(body[a:b])
            if not text:
                continue
            head = " › ".join([title, *path])
            lead = f"{head}\n{summary}\n" if not chunks and summary else f"{head}\n"
            chunks.append(Chunk(" › ".join(path), lead + text, a, b))
            if len(chunks) >= MAX_CHUNKS:
                return chunks
    if not chunks:
        chunks.append(Chunk("", f"{title}\n{summary}".strip(), 0, 0))
    return chunks


def chunk_hash(model_id: str, text: str) -> str:
    return hashlib.sha1(f"{model_id}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
