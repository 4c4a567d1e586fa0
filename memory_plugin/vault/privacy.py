"""What "private" means: one definition, fail-closed, used by the parser, the hooks' quick check,
every output and the journal (standard library only: the hooks import it).

A note is private when any line of its frontmatter gives the key `private` (any case, quoted or
not, at any indentation, in a flow mapping too) a true value in any YAML spelling: true, yes, on,
y or 1, any case, quoted or not, with or without a tag (`!!bool`), anchor or trailing comment. The
lines are read as text, so the answer does not depend on the YAML parsing: an unclosed quote on
another line or a tab-indented key cannot make a private note public. When the value cannot be
known without YAML (an alias `*x`, a block scalar, a value on the next line), the note is private.
"""
from __future__ import annotations

import re

from . import frontmatter as _fm

TRUE_WORDS = frozenset({"true", "yes", "on", "y", "1"})
_FALSE_WORDS = frozenset({"false", "no", "off", "n", "0", "null", "~"})
# How much of a file the hooks read to decide; a frontmatter still open after this is private.
HEAD_BYTES = 256 * 1024

# `private` as a whole key: not `is_private`, not `private_notes`. Anchored by the literal word, and
# `.*` runs once to the end of the line, so the scan is linear in the text.
_KEY = re.compile(r"""(?<![\w.-])["']?private["']?[ \t]*:(.*)""", re.I)
_EXPLICIT = re.compile(r"[ \t]*\?[ \t]+(.*)")
_EXPLICIT_VALUE = re.compile(r"[ \t]*:(?:[ \t]+(.*)|$)")
_ALIAS_KEY = re.compile(r"^[ \t]*(?:- +)?\*[^\s:]+[ \t]*:", re.M)


def _value_says_true(value: str) -> bool | None:
    """True / False for a value on the key's line; None when the value is elsewhere (next line,
    block scalar, alias): the caller then fails closed."""
    v = value.strip()
    if " #" in v or "\t#" in v:
        v = re.split(r"[ \t]#", v, maxsplit=1)[0].strip()
    v = re.split(r"[,}\]]", v, maxsplit=1)[0].strip()  # `{a: 1, private: true, b: 2}`
    words = [w for w in v.split() if not w.startswith(("!", "&"))]  # tags and anchors
    v = " ".join(words).strip().strip("'\"").strip().lower()
    if not v or v in ("|", ">", "|-", ">-", "|+", ">+") or v.startswith("*"):
        return None
    return v in TRUE_WORDS


def _scan(lines: list[str]) -> bool:
    """The line-by-line reading of a frontmatter's lines (breaks removed)."""
    n = len(lines)
    for i, line in enumerate(lines):
        low = line.lower()
        if "private" not in low:
            continue
        ex = _EXPLICIT.match(line)
        if ex:  # `? private` then `: value` on a later line (a YAML explicit key)
            key = " ".join(w for w in ex.group(1).split() if not w.startswith(("!", "&")))
            if key.strip("'\"").strip().lower() == "private":
                nxt = next((x for x in lines[i + 1:] if x.strip()), "")
                v = _EXPLICIT_VALUE.match(nxt)
                if v is None:
                    continue  # `? private` with no value: null
                said = _value_says_true(v.group(1) or "")
                if said is None or said:
                    return True
                continue
        m = _KEY.search(line)
        if not m:
            continue
        said = _value_says_true(m.group(1))
        if said:
            return True
        if said is None:  # the value is not on this line: fail closed unless it is plainly absent
            nxt = lines[i + 1].strip() if i + 1 < n else ""
            nxt = nxt[2:].strip() if nxt.startswith("- ") else nxt
            if m.group(1).strip() == "" and (not nxt or ":" in nxt or nxt.strip("'\"").lower() in _FALSE_WORDS):
                continue  # `private:` alone (YAML null), or followed by the next key or a false
            return True
    return False


def says_private(text: str, complete: bool = True) -> bool:
    """Whether the note whose text starts with `text` is private. `complete=False` when `text` is only
    the head of the file: a frontmatter that is still open at its end counts as private. The block is
    found as every reader finds it (frontmatter.locate), then read twice, as written and with its
    quoted scalars decoded (an escaped key such as `"priv\\x61te"`), and private if either says so; a
    key given by an alias (`*k : true`) beside the word private anywhere counts as private."""
    if text.startswith("\ufeff"):
        text = text[1:]
    block = _fm.locate(text)
    if block is None:
        return False
    closed = block.close is not None
    yaml_text = block.yaml
    said = "private" in yaml_text.lower()
    if said and _scan(_fm.BREAK_RE.split(yaml_text)):
        return True
    # Only an escape (or a doubled quote) can spell the word where the text does not show it: most
    # frontmatters have quotes and none of these, and every note's parse comes through here.
    if "\\" in yaml_text or "''" in yaml_text:
        decoded = _fm.unquote_scalars(yaml_text)
        if decoded != yaml_text and "private" in decoded.lower() and _scan(_fm.BREAK_RE.split(decoded)):
            return True
    if said and "*" in yaml_text and _ALIAS_KEY.search(yaml_text):
        return True
    # no closing fence: Obsidian shows no properties, but the lines still said what they said
    return not closed and not complete


def props_say_private(props: dict) -> bool:
    """What YAML made of the frontmatter says private: a top-level key that reads `private` once
    stripped and folded gives it a true value. The parser checks this after the text reading, so that
    a spelling the text reading missed still makes the note private (fail closed)."""
    for k, v in props.items():
        if str(k).strip().casefold() == "private":
            if v is True or (isinstance(v, (int, float)) and v == 1) or \
                    (isinstance(v, str) and v.strip().lower() in TRUE_WORDS):
                return True
    return False


def head_says_private(raw: bytes, complete: bool) -> bool:
    """The one decision, from a file's first bytes: the parser and the hooks both decide on the first
    HEAD_BYTES (`complete`: `raw` is the whole file), so they can never disagree."""
    return says_private(raw[:HEAD_BYTES].decode("utf-8", errors="replace"),
                        complete=complete and len(raw) <= HEAD_BYTES)


def file_says_private(path: str) -> bool | None:
    """Read the head of a note file and decide; None when the file cannot be read (missing, moved,
    unreadable): callers treat that as private."""
    try:
        with open(path, "rb") as f:
            raw = f.read(HEAD_BYTES + 1)
    except OSError:
        return None
    return head_says_private(raw, complete=True)
