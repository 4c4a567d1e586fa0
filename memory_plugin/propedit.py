"""Edit a note's properties by changing lines of its YAML text, never by re-dumping the YAML.

Everything outside the changed keys (other properties, comments, key order, the body, the BOM and
the line endings) stays byte-for-byte.
"""
from __future__ import annotations

import datetime as _dt
import json
import re

TYPE_CHECKING = False  # typing and difflib are not imported on the hooks' paths (a few ms each)
if TYPE_CHECKING:
    from typing import Any

_DELIM = re.compile(r"^---[ \t]*$")
# Strings safe to write unquoted: a letter first, then letters, digits, spaces, - _ / and dots.
_PLAIN = re.compile(r"^[^\W\d_][\w\-/. ]*(?<![ .])$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def render(value: Any) -> str:
    """A YAML value that Obsidian and PyYAML both read back as `value`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(render(v) for v in value) + "]"
    s = str(value)
    if _PLAIN.match(s) and s.lower() not in _YAML_WORDS:
        return s
    # A JSON string is a valid YAML double-quoted scalar.
    return json.dumps(s, ensure_ascii=False)


def _newline(text: str) -> str:
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def _frontmatter_span(lines: list[str]) -> int | None:
    """Index of the closing delimiter line, or None when the note has no frontmatter."""
    if not lines or not _DELIM.match(lines[0].rstrip("\r\n")):
        return None
    for i in range(1, len(lines)):
        s = lines[i].rstrip("\r\n")
        if _DELIM.match(s) or s.rstrip() == "...":
            return i
    return None


def _key_extent(lines: list[str], end: int, key: str) -> tuple[int, int] | None:
    """[start, stop) of the lines holding top-level `key` (its line and its continuation lines)."""
    rx = re.compile(rf"^{re.escape(key)}[ \t]*:")
    for i in range(1, end):
        if rx.match(lines[i]):
            j = i + 1
            while j < end:
                s = lines[j].rstrip("\r\n")
                if s and not s[0] in " \t" and not s.startswith("- ") and s != "-":
                    break
                j += 1
            # trailing blank lines belong to what follows, not to this key
            while j - 1 > i and not lines[j - 1].strip():
                j -= 1
            return i, j
    return None


def set_props(text: str, changes: list[tuple[str, Any]]) -> str:
    """`text` with each (key, value) set: the key's lines replaced, or a line added at the end of
    the properties. A note without properties gets a frontmatter block."""
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    nl = _newline(body)
    lines = body.splitlines(keepends=True)
    end = _frontmatter_span(lines)
    if end is None:
        block = [f"---{nl}"] + [f"{k}: {render(v)}{nl}" for k, v in changes] + [f"---{nl}"]
        return ("\ufeff" if bom else "") + "".join(block) + body
    for key, value in changes:
        new_line = f"{key}: {render(value)}{nl}"
        span = _key_extent(lines, end, key)
        if span:
            lines[span[0]:span[1]] = [new_line]
            end -= (span[1] - span[0]) - 1
        else:
            if end > 0 and lines[end - 1] and not lines[end - 1].endswith(("\n", "\r")):
                lines[end - 1] += nl
            lines.insert(end, new_line)
            end += 1
    return ("\ufeff" if bom else "") + "".join(lines)


def diff(path: str, old: str, new: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}", n=1))


def as_list(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, list):
        return [v for v in value if v is not None]
    return [value]
