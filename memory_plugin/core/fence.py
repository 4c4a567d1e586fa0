"""Vault text in a hook's output: the one escaping function every title, path, summary, "why" and
journal line goes through before a hook prints it.

Claude is told to read the vault's text as data inside a fence (`<memory-plugin-reference>`,
`<memory-plugin-recall>`), so no note may close or open that fence, or start a line of its own.
On the hook path: standard library only, and cheap enough to call per item.
"""
from __future__ import annotations

import re
import unicodedata

_BREAKS_RE = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")  # whitespace, line separators, C0, DEL, C1
# The format characters (Unicode category Cf: zero-width, bidi controls, tag characters) of Unicode 15;
# tests/reliability/test_probe2_fences.py checks this class against the running Python's tables.
# This and the patterns below are compiled on the first text that is not ASCII (_rx): ~8M instructions,
# a twentieth of a file event that brings notes, and none of them finds anything in ASCII text but "<".
_FORMAT = (
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]+")
_SURROGATE = "[\ud800-\udfff]"  # a file name that is not UTF-8 (surrogateescape)
# "<", the characters NFKC makes "<" (small and full-width forms) and its look-alikes in Unicode's
# confusables list, plus the angle brackets a reader could take for one.
LT_LIKE = "<\ufe64\uff1c\u02c2\u1438\u2039\u276e\u2329\u3008\u27e8\u16b2\U0001d236"
_RX: dict[str, re.Pattern] = {}


def _rx(name: str) -> re.Pattern:
    """The pattern `name` ("format", "surrogate", "lt"), compiled once."""
    rx = _RX.get(name)
    if rx is None:
        rx = _RX[name] = re.compile({"format": _FORMAT, "surrogate": _SURROGATE, "lt": f"[{LT_LIKE}]"}[name])
    return rx


_NOT_LETTER_RE = re.compile(r"[^a-z]+")
FENCE_NAME = "memoryplugin"  # the letters of every fence tag's name (memory-plugin-reference, -recall)
FENCE_WINDOW = 64            # characters after a "<" looked at for them
LT_ESCAPE = "&lt;"


def _fence_like(after: str, at_end: bool) -> bool:
    """Could `after` (the text after a "<") make a fence tag? Its letters, NFKD-folded and lower-cased
    with everything else dropped (slashes, spaces, hyphens, digits, other scripts), spell the fence
    name; or the text ends inside that name, so that what follows it in the output might finish it."""
    letters = _NOT_LETTER_RE.sub("", unicodedata.normalize("NFKD", after).casefold())
    return letters.startswith(FENCE_NAME) or (at_end and bool(letters) and FENCE_NAME.startswith(letters))


def plain(s: str) -> bool:
    """`s` is its own escape: printable ASCII (no control character, no format character), with no
    "<", no double space and no space at either end."""
    return s.isascii() and s.isprintable() and "<" not in s and "  " not in s and s == s.strip()


def escape_vault_text(s: object) -> str:
    """Text from the vault made fit for a hook's output, inside a fence. Format characters (zero-width,
    bidi, tags) are dropped; every run of whitespace, line or paragraph separators and control
    characters (C0, DEL, C1) becomes one space, so the text stays on the line it is put on; a lone
    surrogate becomes U+FFFD; and a "<" or look-alike that could begin a memory-plugin fence tag, in any
    case, width or spacing, becomes "&lt;". The result is stripped."""
    if s is None:
        return ""
    s = str(s)
    if plain(s):  # most titles, paths and summaries: no regex pass (a brief escapes hundreds)
        return s
    s = _BREAKS_RE.sub(" ", s if s.isascii() else _rx("format").sub("", s)).strip()
    if not s.isascii():
        s = _rx("surrogate").sub("\ufffd", s)
    elif "<" not in s:  # the one character of LT_LIKE in ASCII
        return s
    if not _rx("lt").search(s):
        return s
    out: list[str] = []
    last = 0
    for m in _rx("lt").finditer(s):
        i = m.start()
        end = i + 1 + FENCE_WINDOW
        if _fence_like(s[i + 1:end], end >= len(s)):
            out += (s[last:i], LT_ESCAPE)
            last = i + 1
    out.append(s[last:])
    return "".join(out)
