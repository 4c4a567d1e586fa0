"""The frontmatter block, read one way by the parser, the privacy check, property edits and cold start
(standard library only: the hooks import it).

One reading means: the same fences (`---` at the very start, after an optional BOM, with any
whitespace after it, a no-break space included; closed by `---` or `...`), the same line breaks (the
ones YAML knows: CR LF, CR, LF, NEL, LS and PS, so a file with CR-only line ends has lines), and the
same key unescaping (YAML's double-quoted escapes, single-quoted `''`, explicit `? key` entries).
"""
from __future__ import annotations

import re

# YAML's line breaks (PyYAML's reader: '\r\n', '\r', '\n', '\x85', '\u2028', '\u2029').
BREAK_RE = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_LINE_RE = re.compile("[^\r\n\x85\u2028\u2029]*(?:\r\n|[\r\n\x85\u2028\u2029])?")


def split_lines(text: str) -> list[str]:
    """`text` cut after each YAML line break, the breaks kept (''.join gives `text` back)."""
    out = _LINE_RE.findall(text)
    if out and out[-1] == "":
        out.pop()
    return out


def content(line: str) -> str:
    """A line without its line break."""
    return BREAK_RE.sub("", line)


def is_open_fence(line: str) -> bool:
    return content(line).rstrip() == "---"


def is_close_fence(line: str) -> bool:
    return content(line).rstrip() in ("---", "...")


class Block:
    """Where the frontmatter of a text lies. `lines` are the text's first lines (breaks kept) up to
    and including the closing fence, or up to the end when the block is not closed; `close` is the
    index of the closing fence line or None; `body_start` the offset of the body in the text."""

    __slots__ = ("lines", "close", "body_start")

    def __init__(self, lines: list[str], close: int | None, body_start: int):
        self.lines, self.close, self.body_start = lines, close, body_start

    @property
    def yaml(self) -> str:
        """The text between the fences (what YAML reads)."""
        return "".join(self.lines[1:self.close if self.close is not None else len(self.lines)])


def locate(text: str) -> Block | None:
    """The frontmatter block of `text` (a BOM already removed), or None when the text does not open
    one. Lines are read one by one up to the closing fence, so a long body is never split."""
    if not text.startswith("---"):
        return None
    lines: list[str] = []
    pos, n = 0, len(text)
    while pos < n:
        m = _LINE_RE.match(text, pos)
        line = m.group(0)
        if not line:
            break
        pos = m.end()
        if not lines:
            if not is_open_fence(line):
                return None
        elif is_close_fence(line):
            lines.append(line)
            return Block(lines, len(lines) - 1, pos)
        lines.append(line)
    return Block(lines, None, n)


# YAML's double-quoted escapes (YAML 1.1 as PyYAML reads them).
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_HEX_LEN = {"x": 2, "u": 4, "U": 8}
_DQ_RE = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_SQ_RE = re.compile(r"'((?:[^']|'')*)'", re.S)


def _unescape_dq(s: str) -> str:
    if "\\" not in s:
        return s
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = s[i + 1]
        if e in _HEX_LEN:
            digits = s[i + 2:i + 2 + _HEX_LEN[e]]
            try:
                out.append(chr(int(digits, 16)))
            except (ValueError, OverflowError):
                out.append(digits)
            i += 2 + _HEX_LEN[e]
        elif e in "\r\n\x85\u2028\u2029":  # an escaped line break joins the lines, spaces dropped
            i += 2
            while i < n and s[i] in " \t\r\n":
                i += 1
        else:
            out.append(_ESCAPES.get(e, e))
            i += 2
    return "".join(out)


def unquote_scalars(yaml_text: str) -> str:
    """`yaml_text` with every quoted scalar replaced by what YAML reads in it (escapes decoded,
    `''` made one quote, line breaks inside folded to spaces), so that a key spelled
    `"priv\\x61te"` or `'pri''vate'` reads as the word it is. Linear: one pass per quote style."""
    def dq(m: re.Match) -> str:
        return BREAK_RE.sub(" ", _unescape_dq(m.group(1)))

    def sq(m: re.Match) -> str:
        return BREAK_RE.sub(" ", m.group(1).replace("''", "'"))

    out = _DQ_RE.sub(dq, yaml_text) if '"' in yaml_text else yaml_text
    return _SQ_RE.sub(sq, out) if "'" in out else out
